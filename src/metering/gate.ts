// Admission: who is calling (auth) and what the call costs (metering), decided in one step before
// any work. On SQLite the whole decision (key lookup, verdict, credit or credit read) is a single item
// of the group transaction. On PostgreSQL it is a key lookup followed by a (grouped) credit statement,
// and a metered request whose key was looked up before skips the lookup: the credit statement itself
// checks that the key's and the account's rows are the versions the verdict was made from.
// Both run the same pure decision, here: `stepFor` says what the verdict needs from storage,
// `conclude` turns the verdict and that answer into an admission. The two gates: gate-sqlite.ts and
// gate-postgres.ts.
import type { IncomingHttpHeaders } from 'node:http';
import type { AuthOutcome, Principal } from '../auth/index.js';
import {
  PENDING_STATUS,
  type Charge,
  type CreditAsk,
  type CreditOutcome,
  type MeteringStore,
  type UsageRow,
} from './store.js';
import { policyOf, positionOf, windowAt, type CreditPolicy, type CreditPosition, type Window } from './window.js';

export type Admission =
  | { kind: 'unauthenticated'; reason: 'missing' | 'invalid' }
  | { kind: 'forbidden'; reason: 'key_disabled' | 'account_disabled'; principal: Principal; position: CreditPosition }
  | {
      kind: 'payment_required';
      reason: 'no_plan' | 'canceled' | 'past_due';
      principal: Principal;
      position: CreditPosition;
    }
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
export async function admitJudged(
  store: MeteringStore,
  outcome: AuthOutcome,
  usage: UsageDraft | null,
  now: number,
): Promise<Admission> {
  const step = stepFor(outcome, usage, now);
  const answer =
    step.need === 'credit'
      ? await store.takeCredit(step.ask, step.usage)
      : step.need === 'used'
        ? await store.readUsed(step.accountId, step.window.start)
        : null;
  return conclude(outcome, step, answer);
}

export type Step =
  | { need: 'nothing' }
  | { need: 'used'; policy: CreditPolicy; window: Window; accountId: string }
  | { need: 'credit'; policy: CreditPolicy; window: Window; ask: CreditAsk; usage: UsageRow };

export type Admitted = Extract<AuthOutcome, { kind: 'ok' }>;

/** What storage must answer for this verdict: a credit (admitted and charged), the count used (any other known key), or nothing. */
export function stepFor(outcome: AuthOutcome, draft: UsageDraft | null, now: number): Step {
  if (outcome.kind === 'unauthenticated') return { need: 'nothing' };
  if (outcome.kind === 'ok' && draft) return creditStep(outcome.principal, draft, now);
  const { account } = outcome.principal;
  const window = windowAt(account.windowAnchor, now);
  return { need: 'used', policy: policyOf(outcome.principal, window.start), window, accountId: account.id };
}

export function creditStep(principal: Principal, draft: UsageDraft, now: number): Extract<Step, { need: 'credit' }> {
  const { account } = principal;
  const window = windowAt(account.windowAnchor, now);
  const policy = policyOf(principal, window.start);
  const ask = {
    accountId: account.id,
    windowStart: window.start,
    included: policy.included,
    overage: policy.overage,
    planId: policy.planId,
  };
  const usage = { ...draft, accountId: account.id, keyId: principal.keyId, status: PENDING_STATUS, durationMs: 0 };
  return { need: 'credit', policy, window, ask, usage };
}

export function conclude(outcome: AuthOutcome, step: Step, answer: number | CreditOutcome | null): Admission {
  if (outcome.kind === 'unauthenticated' || step.need === 'nothing')
    return { kind: 'unauthenticated', reason: 'invalid' };
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
