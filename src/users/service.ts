// The people behind the dashboard: sign-up (a new account on the operator's default plan, or through
// an operator's one-time invitation), sign-in with a throttle on failures, and sessions. Expected
// failures come back as values with a kind; tokens leave here once and are stored only as hashes.
import { randomBytes } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { hashKey } from '../auth/index.js';
import type { AccountsService, PlanInput } from '../accounts/index.js';
import { DAY, HOUR, MINUTE, type Clock } from '../clock.js';
import { atomically } from '../db/atomic.js';
import { forgetWindowsBefore, takeWindowUnits } from '../db/rate-limits.js';
import type { Database } from '../db/index.js';
import { newId } from '../ids.js';
import { nameProblem } from '../names.js';
import { hashPassword, PASSWORD_COST, verifyPassword } from './passwords.js';
import { UsersRepository, type UserRow } from './repository.js';
import { Recovery } from './recovery.js';
import { Invitations, type Invited } from './invitations.js';

/** A session lasts this long from sign-in; signing in again starts a new one. */
export const SESSION_MS = 7 * DAY;
/** Failures per email before it locks, and per client address (higher: offices share addresses). */
export const EMAIL_FAILURES = 5;
export const ADDRESS_FAILURES = 20;
/** The first lock lasts this long and doubles with each failure after it, up to LOCK_MAX_MS. */
const LOCK_BASE_MS = 30_000;
const LOCK_MAX_MS = 15 * MINUTE;
/** Failures older than this are forgotten. */
const FAILURE_MEMORY_MS = HOUR;
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
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;
const EMAIL_MAX = 254;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const ROLES = ['owner', 'developer', 'billing'] as const;
export type Role = (typeof ROLES)[number];

export interface SignedInUser {
  id: string;
  email: string;
  accountId: string;
  role: Role;
}

export { MAX_MEMBERS, INVITE_LIMITS } from './invitations.js';

/** Which field a refusal is about, so a form can show it next to that field. */
export type Field = 'email' | 'password' | 'accountName' | 'form';
export type UsersFailure =
  | { kind: 'invalid'; field: Field; message: string }
  | { kind: 'conflict'; field: Field; message: string }
  | { kind: 'throttled'; field: Field; message: string; retryAfterSeconds: number }
  | { kind: 'closed'; field: Field; message: string };
export type UsersResult<T> = { kind: 'ok'; value: T } | UsersFailure;

export interface UsersOptions {
  db: Database;
  clock: Clock;
  accounts: AccountsService;
  /** The plan of accounts made by sign-up; null when sign-up is off (invitations only). */
  signupPlan: PlanInput | null;
  /** log2(N) of new password hashes (OWASP's 17 unless a test asks for less). */
  passwordCost?: number;
  /** Sign-ups per client address and in all per hour (default SIGNUP_LIMITS). */
  signupLimits?: { perAddress: number; overall: number };
  /** Invitations per account an hour and a day (default INVITE_LIMITS). */
  inviteLimits?: { perHour: number; perDay: number };
}

export class UsersService {
  private readonly repository: UsersRepository;
  /** A real hash to check when the email is unknown, so a wrong email costs as long as a wrong password. */
  private decoy: Promise<string> | null = null;

  /** Password reset, change, sign-out everywhere and the proof of the address (recovery.ts). */
  readonly recovery: Recovery;
  /** Colleagues' invitations: limits, the open ones, revoking (invitations.ts). */
  readonly invitations: Invitations;

  constructor(private readonly o: UsersOptions) {
    this.repository = new UsersRepository(o.db);
    this.recovery = new Recovery(o.db, o.clock, o.passwordCost ?? PASSWORD_COST);
    this.invitations = new Invitations({ db: o.db, clock: o.clock, accounts: o.accounts, repository: this.repository, limits: o.inviteLimits });
  }

  /** Where the account's mail goes: its first owner's email, or null when it has no users. */
  ownerEmail(accountId: string): Promise<string | null> {
    return this.repository.ownerEmail(accountId);
  }

  get signupOpen(): boolean {
    return this.o.signupPlan !== null;
  }

  /**
   * A new account on the default plan, with this user as its owner. No session: the answer must not
   * tell whether the email already had an account, so an email that has one gets the same 'ok' after
   * the same work (a password hash) and nothing is created or changed; either way the person signs
   * in next (docs/decisions.md). `created` is for the caller's tests and counters, never for the
   * person's answer. Sign-ups are limited per client `address` and in all (SIGNUP_LIMITS).
   */
  async signUp(input: { email: string; password: string; accountName: string; address: string }): Promise<UsersResult<{ created: boolean }>> {
    if (!this.o.signupPlan) return { kind: 'closed', field: 'form', message: 'Sign-up is closed on this service: ask its operator for an invitation link' };
    const checked = checkCredentials(input.email, input.password);
    if (checked.kind !== 'ok') return checked;
    const name = input.accountName.trim();
    const nameIssue = nameProblem('Account name', name, { min: 2, max: 100 });
    if (nameIssue) return { kind: 'invalid', field: 'accountName', message: nameIssue };
    const throttled = await this.takeSignup(input.address);
    if (throttled) return throttled;
    const taken = await this.repository.userByEmail(checked.value);
    // The hash is made either way, so a taken email costs the time a new one does.
    const row = await this.userRow(checked.value, input.password, '');
    if (taken) return { kind: 'ok', value: { created: false } };
    const created = await this.o.accounts.createAccount(
      { slug: slugFor(name), name, plan: this.o.signupPlan },
      (accountId) => [this.repository.insertUserQuery({ ...row, account_id: accountId })],
    );
    if (created.kind !== 'ok') {
      // The email was taken between the check and the insert: the account went with it (one unit).
      if (await this.repository.userByEmail(checked.value)) return { kind: 'ok', value: { created: false } };
      return { kind: 'invalid', field: 'form', message: created.message };
    }
    return { kind: 'ok', value: { created: true } };
  }

  /** One sign-up from the address's and the service's allowance of this hour, or why not. */
  private async takeSignup(address: string): Promise<UsersFailure | null> {
    const limits = this.o.signupLimits ?? SIGNUP_LIMITS;
    const now = this.o.clock.now();
    const windowStart = Math.floor(now / SIGNUP_WINDOW_MS) * SIGNUP_WINDOW_MS;
    const refused = await takeWindowUnits(
      this.o.db,
      [
        { key: `${SIGNUP_ADDRESS_BUCKET}${addressBucket(address)}`, limit: limits.perAddress },
        { key: 'signup:all', limit: limits.overall },
      ],
      windowStart,
    );
    if (refused === null) {
      // Last hour's per-address counters count nothing now.
      await forgetWindowsBefore(this.o.db, SIGNUP_ADDRESS_BUCKET, windowStart);
      return null;
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + SIGNUP_WINDOW_MS - now) / 1000));
    const message =
      refused === 0
        ? `Too many sign-ups from your network address: try again in ${waitWords(retryAfterSeconds)}`
        : `Too many new accounts on this service right now: try again in ${waitWords(retryAfterSeconds)}`;
    return { kind: 'throttled', field: 'form', message, retryAfterSeconds };
  }

  /** A user of the invitation's account, and a session; the invitation is used up with it. */
  async acceptInvite(token: string, input: { email: string; password: string }): Promise<UsersResult<{ user: SignedInUser; session: string }>> {
    const now = this.o.clock.now();
    const inviteId = hashKey(token);
    const invite = await this.repository.openInvite(inviteId, now);
    if (!invite) return { kind: 'invalid', field: 'form', message: 'This invitation link has expired or was already used; ask the operator for a new one' };
    const checked = checkCredentials(input.email, input.password);
    if (checked.kind !== 'ok') return checked;
    if (invite.email && invite.email !== checked.value) return { kind: 'invalid', field: 'email', message: `This invitation is for ${invite.email}` };
    if (await this.repository.userByEmail(checked.value)) return emailTaken();
    const row = { ...(await this.userRow(checked.value, input.password, invite.account_id)), role: invite.role ?? 'owner' };
    try {
      const [used] = await atomically(this.o.db, [this.repository.useInviteQuery(inviteId, now), this.repository.insertUserQuery(row)]);
      if (used !== 1) throw new Error('invitation used meanwhile');
    } catch {
      if (await this.repository.userByEmail(checked.value)) return emailTaken();
      return { kind: 'invalid', field: 'form', message: 'This invitation link has expired or was already used; ask the operator for a new one' };
    }
    return { kind: 'ok', value: { user: signedIn(row), session: await this.startSession(row.id) } };
  }

  /** Whether an invitation link is still good (the page asks before showing its form). */
  async inviteOpen(token: string): Promise<boolean> {
    return (await this.invitation(token)) !== null;
  }

  /** A good invitation's address (a colleague's; null for the operator's) and role, or null. */
  async invitation(token: string): Promise<{ email: string | null; role: Role } | null> {
    const invite = await this.repository.openInvite(hashKey(token), this.o.clock.now());
    return invite ? { email: invite.email ?? null, role: invite.role ?? 'owner' } : null;
  }

  /**
   * A session for the right email and password. Failures are counted per email and per client
   * address; past EMAIL_FAILURES (ADDRESS_FAILURES) each attempt waits a lock that doubles from 30 s
   * to 15 min, and a locked attempt is refused before the password is even checked.
   */
  async signIn(input: { email: string; password: string; address: string }): Promise<UsersResult<{ user: SignedInUser; session: string }>> {
    const now = this.o.clock.now();
    const email = normaliseEmail(input.email);
    const buckets = [`email:${hashKey(email)}`, `ip:${input.address}`];
    const locked = (await this.repository.throttle(buckets)).reduce((until, row) => Math.max(until, row.locked_until), 0);
    if (locked > now) {
      const retryAfterSeconds = Math.ceil((locked - now) / 1000);
      return { kind: 'throttled', field: 'form', message: `Too many failed sign-ins: try again in ${waitWords(retryAfterSeconds)}`, retryAfterSeconds };
    }
    const user = email.length <= EMAIL_MAX ? await this.repository.userByEmail(email) : undefined;
    const matches = user
      ? await verifyPassword(input.password.slice(0, PASSWORD_MAX * 4), user.password_hash)
      : (await verifyPassword(input.password.slice(0, PASSWORD_MAX * 4), await this.decoyHash()), false);
    if (!user || !matches) {
      await this.repository.recordFailure(buckets[0]!, now, FAILURE_MEMORY_MS, (n) => lockFor(n, EMAIL_FAILURES));
      await this.repository.recordFailure(buckets[1]!, now, FAILURE_MEMORY_MS, (n) => lockFor(n, ADDRESS_FAILURES));
      return { kind: 'invalid', field: 'form', message: 'Wrong email or password' };
    }
    await this.repository.clearFailures(buckets[0]!);
    await this.repository.deleteExpired(now);
    return { kind: 'ok', value: { user: signedIn(user), session: await this.startSession(user.id) } };
  }

  /** The user a session token belongs to, or null (unknown, tampered or expired). */
  async session(token: string): Promise<SignedInUser | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const user = await this.repository.sessionUser(hashKey(token), this.o.clock.now());
    return user ? signedIn(user) : null;
  }

  async signOut(token: string): Promise<void> {
    await this.repository.deleteSession(hashKey(token));
  }

  /**
   * An owner invites a colleague by email with a role: a one-time link (a week) for that address.
   * Refused for an address that already signs in somewhere, past MAX_MEMBERS and the account's
   * allowance (invitations.ts), and, when the link goes out by mail (`byMail`), until the inviting
   * owner's own address is confirmed: the mail names it, so it must be theirs.
   */
  async inviteColleague(accountId: string, input: { email: string; role: string }, inviter: { id: string; email: string }, o: { byMail: boolean }): Promise<UsersResult<Invited>> {
    const email = normaliseEmail(input.email);
    const problem = emailProblem(email);
    if (problem) return { kind: 'invalid', field: 'email', message: problem };
    if (!(ROLES as readonly string[]).includes(input.role)) return { kind: 'invalid', field: 'form', message: `Role must be one of ${ROLES.join(', ')}` };
    if (o.byMail && !(await this.recovery.verified(inviter.id))) {
      return { kind: 'closed', field: 'form', message: 'Confirm your own email address first (Your account sends the link again): the invitation is mailed in your name' };
    }
    if (await this.repository.userByEmail(email)) return { kind: 'conflict', field: 'email', message: 'This email already signs in to an account; each person has one sign-in' };
    return this.invitations.create(accountId, { email, role: input.role as Role, invitedBy: inviter.email });
  }

  /** The account's people, oldest first. */
  async members(accountId: string): Promise<{ id: string; email: string; role: Role; joinedAt: number }[]> {
    return (await this.repository.members(accountId)).map((m) => ({ id: m.id, email: m.email, role: m.role, joinedAt: Number(m.created_at) }));
  }

  /**
   * Removes a colleague (their sessions end); never oneself, never the last owner. The account's row
   * is held while its people are read, checked and one deleted, so two owners removing each other at
   * once run one after the other and the second finds only one owner left.
   */
  async removeMember(accountId: string, actorId: string, userId: string): Promise<UsersResult<{ email: string }>> {
    return this.o.db.kysely.transaction().execute(async (trx): Promise<UsersResult<{ email: string }>> => {
      const members = (await this.o.accounts.hold(trx, accountId)) ? await this.repository.members(accountId, trx) : [];
      if (!members.some((m) => m.id === actorId)) return { kind: 'invalid', field: 'form', message: 'You are no longer on this account' };
      const member = members.find((m) => m.id === userId);
      if (!member) return { kind: 'invalid', field: 'form', message: 'No such person on this account' };
      if (userId === actorId) return { kind: 'invalid', field: 'form', message: 'You cannot remove yourself; another owner can' };
      if (member.role === 'owner' && members.filter((m) => m.role === 'owner').length <= 1) return { kind: 'invalid', field: 'form', message: 'An account keeps at least one owner' };
      await this.repository.deleteUser(trx, userId);
      return { kind: 'ok', value: { email: member.email } };
    });
  }

  /** A one-time sign-up link's token for an account (the operator's `flightstatus accounts invite`). */
  invite(accountId: string): Promise<{ token: string; expiresAt: number }> {
    return this.invitations.createForOperator(accountId);
  }

  private async startSession(userId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = this.o.clock.now();
    await this.repository.insertSession({ id: hashKey(token), user_id: userId, created_at: now, expires_at: now + SESSION_MS });
    return token;
  }

  private async userRow(email: string, password: string, accountId: string): Promise<UserRow> {
    const now = this.o.clock.now();
    const password_hash = await hashPassword(password, this.o.passwordCost ?? PASSWORD_COST);
    return { id: newId('usr'), account_id: accountId, email, password_hash, role: 'owner', created_at: now, updated_at: now, email_verified_at: null };
  }

  private decoyHash(): Promise<string> {
    return (this.decoy ??= hashPassword(randomBytes(16).toString('hex'), this.o.passwordCost ?? PASSWORD_COST));
  }
}

function checkCredentials(email: string, password: string): UsersResult<string> {
  const normalised = normaliseEmail(email);
  if (emailProblem(normalised)) return { kind: 'invalid', field: 'email', message: emailProblem(normalised)! };
  const problem = passwordProblem(password);
  if (problem) return { kind: 'invalid', field: 'password', message: problem };
  return { kind: 'ok', value: normalised };
}

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/** What is wrong with a (normalised) email, or null. */
export const emailProblem = (email: string): string | null =>
  email.length > EMAIL_MAX || !EMAIL.test(email) ? 'Enter an email address like name@example.com' : null;

/** What is wrong with a new password, or null. */
export const passwordProblem = (password: string): string | null =>
  password.length < PASSWORD_MIN || password.length > PASSWORD_MAX ? `Password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters` : null;

/**
 * What sign-ups are counted under for a client address: an IPv4 address as it is (an IPv4-mapped
 * IPv6 one as IPv4), an IPv6 address by its /64, the block a single customer line is given, so that
 * one line cannot count as 2^64 addresses.
 */
export function addressBucket(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address); // an IPv4-mapped IPv6 address becomes its IPv4 address
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${(parsed as ipaddr.IPv6).parts.slice(0, 4).map((group) => group.toString(16)).join(':')}::/64`;
}
const emailTaken = (): UsersFailure => ({ kind: 'conflict', field: 'email', message: 'An account with this email already exists: sign in instead' });
const signedIn = (row: UserRow): SignedInUser => ({ id: row.id, email: row.email, accountId: row.account_id, role: row.role });

/** 0 below the threshold, then 30 s doubling per failure, at most 15 min. */
function lockFor(failures: number, threshold: number): number {
  if (failures < threshold) return 0;
  return Math.min(LOCK_MAX_MS, LOCK_BASE_MS * 2 ** Math.min(failures - threshold, 10));
}

function waitWords(seconds: number): string {
  return seconds < 90 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
}

/** A slug from the account name, with a random tail so two "Acme" accounts never collide. */
function slugFor(name: string): string {
  const base = name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40).replace(/-+$/, '');
  return `${base || 'account'}-${randomBytes(3).toString('hex')}`;
}
