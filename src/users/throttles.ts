// The dashboard's throttles: the lock an email and a client address earn by failed sign-ins, and the
// sign-ups each client address and the whole service may make in an hour of the service clock.
import ipaddr from 'ipaddr.js';
import { HOUR, MINUTE, type Clock } from '../clock.js';
import { forgetWindowsBefore, takeWindowUnits } from '../db/rate-limits.js';
import type { Database } from '../db/index.js';
import type { UsersFailure } from './credentials.js';

/** Failures per email before it locks, and per client address (higher: offices share addresses). */
export const EMAIL_FAILURES = 5;
export const ADDRESS_FAILURES = 20;
/** The first lock lasts this long and doubles with each failure after it, up to LOCK_MAX_MS. */
const LOCK_BASE_MS = 30_000;
const LOCK_MAX_MS = 15 * MINUTE;
/** Failures older than this are forgotten. */
export const FAILURE_MEMORY_MS = HOUR;
/**
 * Sign-ups per clock hour of the service clock: per client address, and in all (each sign-up is an
 * account with the sign-up plan's free requests). A person signs up once and may retry a few times;
 * colleagues behind one office address join by invitation. 100 an hour in all is far above what a
 * new service sees and bounds what a spread-out attack gets to 2,400 accounts a day; an operator
 * expecting more raises it (FLIGHTSTATUS_SIGNUPS_PER_HOUR).
 */
export const SIGNUP_LIMITS = { perAddress: 5, overall: 100 } as const;
const SIGNUP_WINDOW_MS = HOUR;
const SIGNUP_ADDRESS_BUCKET = 'signup:address:';

/** One sign-up from the address's and the service's allowance of this hour, or why not. */
export async function takeSignup(
  db: Database,
  clock: Clock,
  address: string,
  limits: { perAddress: number; overall: number } = SIGNUP_LIMITS,
): Promise<UsersFailure | null> {
  const now = clock.now();
  const windowStart = Math.floor(now / SIGNUP_WINDOW_MS) * SIGNUP_WINDOW_MS;
  const refused = await takeWindowUnits(
    db,
    [
      { key: `${SIGNUP_ADDRESS_BUCKET}${addressBucket(address)}`, limit: limits.perAddress },
      { key: 'signup:all', limit: limits.overall },
    ],
    windowStart,
  );
  if (refused === null) {
    // Last hour's per-address counters count nothing now.
    await forgetWindowsBefore(db, SIGNUP_ADDRESS_BUCKET, windowStart);
    return null;
  }
  const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + SIGNUP_WINDOW_MS - now) / 1000));
  const message =
    refused === 0
      ? `Too many sign-ups from your network address: try again in ${waitWords(retryAfterSeconds)}`
      : `Too many new accounts on this service right now: try again in ${waitWords(retryAfterSeconds)}`;
  return { kind: 'throttled', field: 'form', message, retryAfterSeconds };
}

/**
 * What sign-ups are counted under for a client address: an IPv4 address as it is (an IPv4-mapped
 * IPv6 one as IPv4), an IPv6 address by its /64, the block a single customer line is given, so that
 * one line cannot count as 2^64 addresses.
 */
export function addressBucket(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address); // an IPv4-mapped IPv6 address becomes its IPv4 address
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${(parsed as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/** 0 below the threshold, then 30 s doubling per failure, at most 15 min. */
export function lockFor(failures: number, threshold: number): number {
  if (failures < threshold) return 0;
  return Math.min(LOCK_MAX_MS, LOCK_BASE_MS * 2 ** Math.min(failures - threshold, 10));
}

export function waitWords(seconds: number): string {
  return seconds < 90 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
}
