// Authorisation (docs/errors.md): 401 for a missing or unknown key, 403 for a disabled key or account,
// 402 for an account without an active plan. Expected refusals are values, not exceptions.
import type { IncomingHttpHeaders } from 'node:http';
import { readCredential } from './credential.js';
import { digestsEqual, hashKey, isWellFormedKey } from './keys.js';
import { toPrincipal, type Principal, type PrincipalRow } from './principal.js';

export type AuthOutcome =
  | { kind: 'ok'; principal: Principal }
  | { kind: 'unauthenticated'; reason: 'missing' | 'invalid' }
  | { kind: 'forbidden'; principal: Principal; reason: 'key_disabled' | 'account_disabled' }
  | { kind: 'payment_required'; principal: Principal; reason: 'no_plan' | 'canceled' | 'past_due' };

export type HashedCredential = { kind: 'missing' | 'invalid' } | { kind: 'hash'; hash: string };

/** The SHA-256 of the presented key, or why there is none to look up. */
export function hashedCredential(headers: IncomingHttpHeaders): HashedCredential {
  const credential = readCredential(headers);
  if (credential.kind === 'missing') return { kind: 'missing' };
  if (!isWellFormedKey(credential.key)) return { kind: 'invalid' };
  return { kind: 'hash', hash: hashKey(credential.key) };
}

/** The verdict on a looked-up key (pure: the lookup happened before). */
export function judge(row: PrincipalRow | undefined, hash: string): AuthOutcome {
  if (!row || !digestsEqual(row.key_hash, hash)) return { kind: 'unauthenticated', reason: 'invalid' };
  return judgePrincipal(toPrincipal(row));
}

/** The verdict on a known caller: a key's, or a dashboard user's acting for their account. */
export function judgePrincipal(principal: Principal): AuthOutcome {
  // A disabled account outranks its billing state: the operator switched it off.
  if (principal.account.disabled) return { kind: 'forbidden', principal, reason: 'account_disabled' };
  if (principal.keyDisabled) return { kind: 'forbidden', principal, reason: 'key_disabled' };
  const billing = billingRefusal(principal);
  if (billing) return { kind: 'payment_required', principal, reason: billing };
  return { kind: 'ok', principal };
}

/** Internal (unlimited) accounts are never refused for billing; others need an active plan. */
export function billingRefusal(principal: Principal): 'no_plan' | 'canceled' | 'past_due' | null {
  const { account } = principal;
  if (account.unlimited) return null;
  if (account.billingStatus === 'canceled') return 'canceled';
  if (account.billingStatus === 'past_due') return 'past_due';
  if (account.billingStatus !== 'active' || account.planIncluded === null) return 'no_plan';
  return null;
}
