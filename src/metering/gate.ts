// Admission: who is calling (auth) and what the call costs (metering), decided in one step before
// any work. On SQLite the whole decision (key lookup, verdict, credit or credit read) is a single item
// of the group transaction. On PostgreSQL it is a key lookup followed by a (grouped) credit statement,
// and a metered request whose key was looked up before skips the lookup: the credit statement itself
// checks that the key's and the account's rows are the versions the verdict was made from.
// Both run the same pure decision: `stepFor` says what the verdict needs from storage, `conclude`
// turns the verdict and that answer into an admission.
import type { IncomingHttpHeaders } from 'node:http';
import { LRUCache } from 'lru-cache';
import type { AuthOutcome, KeyLookup, Principal, PrincipalVersion, SqliteKeyLookup } from '../auth/index.js';
import { hashedCredential, judge, judgePrincipal, versionOf } from '../auth/index.js';
import type { Clock } from '../clock.js';
import type { SqliteGroup } from '../db/index.js';
import { STALE } from './group-commit.js';
import { PENDING_STATUS, type Charge, type CreditAsk, type CreditOutcome, type MeteringStore, type UsageRow } from './store.js';
import { StaleAdmissionError, STALE_ATTEMPTS, type PostgresMeteringStore } from './store-postgres.js';
import type { SqliteMeteringStore } from './store-sqlite.js';
import { policyOf, positionOf, windowAt, type CreditPolicy, type CreditPosition, type Window } from './window.js';

export type Admission =
  | { kind: 'unauthenticated'; reason: 'missing' | 'invalid' }
  | { kind: 'forbidden'; reason: 'key_disabled' | 'account_disabled'; principal: Principal; position: CreditPosition }
  | { kind: 'payment_required'; reason: 'no_plan' | 'canceled' | 'past_due'; principal: Principal; position: CreditPosition }
  /** Allowance spent and overage off: refused, nothing taken. */
  | { kind: 'exhausted'; principal: Principal; position: CreditPosition }
  /** `charge`: the credit taken and the usage row written with it (metered requests). */
  | { kind: 'admitted'; principal: Principal; position: CreditPosition; charge: Charge | null };

/** What a metered request's usage row says before its answer is known. */
export interface UsageDraft {
  /** When the credit is taken, by the service clock. */
  at: number;
  endpoint: string;
  query: string;
}

export interface Gate {
  /**
   * With `usage`, takes one credit and writes the usage row with it, together (or refuses and
   * writes nothing); without, only reports the credit position.
   */
  admit(headers: IncomingHttpHeaders, usage: UsageDraft | null): Promise<Admission>;
  /**
   * The same for a caller known without a key (a dashboard user acting for their account): its
   * principal's keyId is what the usage row records as the caller.
   */
  admitPrincipal(principal: Principal, usage: UsageDraft): Promise<Admission>;
}

/** Admission of a judged caller through any store (the credit statement grouped by the store). */
async function admitJudged(store: MeteringStore, outcome: AuthOutcome, usage: UsageDraft | null, now: number): Promise<Admission> {
  const step = stepFor(outcome, usage, now);
  const answer =
    step.need === 'credit' ? await store.takeCredit(step.ask, step.usage) : step.need === 'used' ? await store.readUsed(step.accountId, step.window.start) : null;
  return conclude(outcome, step, answer);
}

type Step =
  | { need: 'nothing' }
  | { need: 'used'; policy: CreditPolicy; window: Window; accountId: string }
  | { need: 'credit'; policy: CreditPolicy; window: Window; ask: CreditAsk; usage: UsageRow };

type Admitted = Extract<AuthOutcome, { kind: 'ok' }>;

/** What storage must answer for this verdict: a credit (admitted and charged), the count used (any other known key), or nothing. */
function stepFor(outcome: AuthOutcome, draft: UsageDraft | null, now: number): Step {
  if (outcome.kind === 'unauthenticated') return { need: 'nothing' };
  if (outcome.kind === 'ok' && draft) return creditStep(outcome.principal, draft, now);
  const { account } = outcome.principal;
  const window = windowAt(account.windowAnchor, now);
  return { need: 'used', policy: policyOf(outcome.principal, window.start), window, accountId: account.id };
}

function creditStep(principal: Principal, draft: UsageDraft, now: number): Extract<Step, { need: 'credit' }> {
  const { account } = principal;
  const window = windowAt(account.windowAnchor, now);
  const policy = policyOf(principal, window.start);
  const ask = { accountId: account.id, windowStart: window.start, included: policy.included, overage: policy.overage, planId: policy.planId };
  const usage = { ...draft, accountId: account.id, keyId: principal.keyId, status: PENDING_STATUS, durationMs: 0 };
  return { need: 'credit', policy, window, ask, usage };
}

function conclude(outcome: AuthOutcome, step: Step, answer: number | CreditOutcome | null): Admission {
  if (outcome.kind === 'unauthenticated' || step.need === 'nothing') return { kind: 'unauthenticated', reason: 'invalid' };
  const { principal } = outcome;
  if (step.need === 'credit') {
    const credit = answer as CreditOutcome;
    const position = positionOf(step.policy, credit.used, step.window);
    if (!credit.granted) return { kind: 'exhausted', principal, position };
    const charge = { usageId: credit.usageId!, accountId: step.ask.accountId, windowStart: step.ask.windowStart };
    return { kind: 'admitted', principal, position, charge };
  }
  const position = positionOf(step.policy, answer as number, step.window);
  if (outcome.kind === 'ok') return { kind: 'admitted', principal, position, charge: null };
  return { ...outcome, position };
}

/** SQLite: the whole admission is one item of the group transaction. */
class SqliteGate implements Gate {
  constructor(
    private readonly group: SqliteGroup,
    private readonly keys: SqliteKeyLookup,
    private readonly store: SqliteMeteringStore,
    private readonly clock: Clock,
  ) {}

  admit(headers: IncomingHttpHeaders, usage: UsageDraft | null): Promise<Admission> {
    const credential = hashedCredential(headers);
    if (credential.kind !== 'hash') return Promise.resolve({ kind: 'unauthenticated', reason: credential.kind });
    const now = this.clock.now();
    return this.group.run(() => {
      const outcome = judge(this.keys.findByHashNow(credential.hash), credential.hash);
      const step = stepFor(outcome, usage, now);
      const answer =
        step.need === 'credit'
          ? this.store.takeCreditNow(step.ask, step.usage)
          : step.need === 'used'
            ? this.store.readUsedNow(step.accountId, step.window.start)
            : null;
      return conclude(outcome, step, answer);
    });
  }

  admitPrincipal(principal: Principal, usage: UsageDraft): Promise<Admission> {
    return admitJudged(this.store, judgePrincipal(principal), usage, this.clock.now());
  }
}

/** Principals kept for metered requests (each entry is a verdict and the row versions it was made from). */
const PRINCIPAL_CACHE_SIZE = 10_000;
/** Only bounds how long an unused entry takes memory: correctness comes from the check, not from time. */
const PRINCIPAL_CACHE_TTL_MS = 10 * 60_000;

/**
 * PostgreSQL: the key lookup, then the credit statement (grouped by the store). A metered request
 * admits a key found before without looking it up again: its credit statement checks that neither
 * the key's nor the account's row changed since (PrincipalVersion) and takes nothing when one did,
 * and the request is then judged from a fresh lookup. So a key disabled, an account switched off or
 * moved to past due on any process is refused by the next credit statement that starts after that
 * change committed, exactly as without the cache. Only admitted principals are kept; every other
 * verdict, and every request that takes no credit, is looked up fresh.
 */
class PostgresGate implements Gate {
  private readonly principals = new LRUCache<string, { outcome: Admitted; version: PrincipalVersion }>({
    max: PRINCIPAL_CACHE_SIZE,
    ttl: PRINCIPAL_CACHE_TTL_MS,
  });

  constructor(
    private readonly keys: KeyLookup,
    private readonly store: PostgresMeteringStore,
    private readonly clock: Clock,
  ) {}

  async admit(headers: IncomingHttpHeaders, usage: UsageDraft | null): Promise<Admission> {
    const credential = hashedCredential(headers);
    if (credential.kind !== 'hash') return { kind: 'unauthenticated', reason: credential.kind };
    const { hash } = credential;
    const now = this.clock.now();
    if (!usage) return admitJudged(this.store, judge(await this.keys.findByHash(hash), hash), null, now);
    for (let attempt = 0; attempt < STALE_ATTEMPTS; attempt++) {
      let known = this.principals.get(hash);
      if (!known) {
        const row = await this.keys.findByHash(hash);
        const outcome = judge(row, hash);
        const version = row && versionOf(row);
        if (outcome.kind !== 'ok' || !version) return admitJudged(this.store, outcome, usage, now);
        known = { outcome, version };
        this.principals.set(hash, known);
      }
      const step = creditStep(known.outcome.principal, usage, now);
      const answer = await this.store.takeCheckedCredit(step.ask, step.usage, known.version);
      if (answer !== STALE) return conclude(known.outcome, step, answer);
      this.principals.delete(hash);
    }
    throw new StaleAdmissionError();
  }

  admitPrincipal(principal: Principal, usage: UsageDraft): Promise<Admission> {
    return admitJudged(this.store, judgePrincipal(principal), usage, this.clock.now());
  }
}

export type GateParts =
  | { kind: 'sqlite'; group: SqliteGroup; keys: SqliteKeyLookup; store: SqliteMeteringStore; clock: Clock }
  | { kind: 'postgres'; keys: KeyLookup; store: PostgresMeteringStore; clock: Clock };

export function createGate(parts: GateParts): Gate {
  return parts.kind === 'sqlite'
    ? new SqliteGate(parts.group, parts.keys, parts.store, parts.clock)
    : new PostgresGate(parts.keys, parts.store, parts.clock);
}
