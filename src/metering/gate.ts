// Admission: who is calling (auth) and what the call costs (metering), decided in one step before
// any work. On SQLite the whole decision (key lookup, verdict, credit or credit read) is a single item
// of the group transaction; elsewhere it is a key lookup followed by a (grouped) credit statement.
// Both run the same pure decision: `stepFor` says what the verdict needs from storage, `conclude`
// turns the verdict and that answer into an admission.
import type { IncomingHttpHeaders } from 'node:http';
import type { AuthOutcome, AuthService, Principal, SqliteKeyLookup } from '../auth/index.js';
import { hashedCredential, judge } from '../auth/index.js';
import type { Clock } from '../clock.js';
import type { SqliteGroup } from '../db/index.js';
import type { CreditAsk, CreditOutcome, MeteringStore } from './store.js';
import type { SqliteMeteringStore } from './store-sqlite.js';
import { policyOf, positionOf, windowAt, type CreditPolicy, type CreditPosition, type Window } from './window.js';

export type Admission =
  | { kind: 'unauthenticated'; reason: 'missing' | 'invalid' }
  | { kind: 'forbidden'; reason: 'key_disabled' | 'account_disabled'; principal: Principal; position: CreditPosition }
  | { kind: 'payment_required'; reason: 'no_plan' | 'canceled' | 'past_due'; principal: Principal; position: CreditPosition }
  /** Allowance spent and overage off: refused, nothing taken. */
  | { kind: 'exhausted'; principal: Principal; position: CreditPosition }
  | { kind: 'admitted'; principal: Principal; position: CreditPosition; charged: boolean };

export interface Gate {
  /** With `charge`, takes one credit (or refuses); without, only reports the credit position. */
  admit(headers: IncomingHttpHeaders, charge: boolean): Promise<Admission>;
}

type Step =
  | { need: 'nothing' }
  | { need: 'used'; policy: CreditPolicy; window: Window; accountId: string }
  | { need: 'credit'; policy: CreditPolicy; window: Window; ask: CreditAsk };

/** What storage must answer for this verdict: a credit (admitted and charged), the count used (any other known key), or nothing. */
function stepFor(outcome: AuthOutcome, charge: boolean, now: number): Step {
  if (outcome.kind === 'unauthenticated') return { need: 'nothing' };
  const { account } = outcome.principal;
  const policy = policyOf(outcome.principal);
  const window = windowAt(account.windowAnchor, now);
  if (outcome.kind === 'ok' && charge) {
    const ask = { accountId: account.id, windowStart: window.start, included: policy.included, overage: policy.overage };
    return { need: 'credit', policy, window, ask };
  }
  return { need: 'used', policy, window, accountId: account.id };
}

function conclude(outcome: AuthOutcome, step: Step, answer: number | CreditOutcome | null): Admission {
  if (outcome.kind === 'unauthenticated' || step.need === 'nothing') return { kind: 'unauthenticated', reason: 'invalid' };
  const { principal } = outcome;
  if (step.need === 'credit') {
    const credit = answer as CreditOutcome;
    const position = positionOf(step.policy, credit.used, step.window);
    return credit.granted ? { kind: 'admitted', principal, position, charged: true } : { kind: 'exhausted', principal, position };
  }
  const position = positionOf(step.policy, answer as number, step.window);
  if (outcome.kind === 'ok') return { kind: 'admitted', principal, position, charged: false };
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

  admit(headers: IncomingHttpHeaders, charge: boolean): Promise<Admission> {
    const credential = hashedCredential(headers);
    if (credential.kind !== 'hash') return Promise.resolve({ kind: 'unauthenticated', reason: credential.kind });
    const now = this.clock.now();
    return this.group.run(() => {
      const outcome = judge(this.keys.findByHashNow(credential.hash), credential.hash);
      const step = stepFor(outcome, charge, now);
      const answer =
        step.need === 'credit'
          ? this.store.takeCreditNow(step.ask)
          : step.need === 'used'
            ? this.store.readUsedNow(step.accountId, step.window.start)
            : null;
      return conclude(outcome, step, answer);
    });
  }
}

/** Any store: the key lookup, then the credit statement (grouped by the store). */
class StoreGate implements Gate {
  constructor(
    private readonly auth: AuthService,
    private readonly store: MeteringStore,
    private readonly clock: Clock,
  ) {}

  async admit(headers: IncomingHttpHeaders, charge: boolean): Promise<Admission> {
    const outcome = await this.auth.authenticate(headers);
    if (outcome.kind === 'unauthenticated') return outcome;
    const step = stepFor(outcome, charge, this.clock.now());
    const answer =
      step.need === 'credit'
        ? await this.store.takeCredit(step.ask)
        : step.need === 'used'
          ? await this.store.readUsed(step.accountId, step.window.start)
          : null;
    return conclude(outcome, step, answer);
  }
}

export type GateParts =
  | { kind: 'sqlite'; group: SqliteGroup; keys: SqliteKeyLookup; store: SqliteMeteringStore; clock: Clock }
  | { kind: 'store'; auth: AuthService; store: MeteringStore; clock: Clock };

export function createGate(parts: GateParts): Gate {
  return parts.kind === 'sqlite'
    ? new SqliteGate(parts.group, parts.keys, parts.store, parts.clock)
    : new StoreGate(parts.auth, parts.store, parts.clock);
}
