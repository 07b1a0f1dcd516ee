// The people behind the dashboard: sign-up (a new account on the operator's default plan, or through
// an operator's one-time invitation), sign-in with a throttle on failures, and sessions. Expected
// failures come back as values with a kind; tokens leave here once and are stored only as hashes.
import { randomBytes } from 'node:crypto';
import { hashKey } from '../auth/index.js';
import type { AccountsService, PlanInput } from '../accounts/index.js';
import type { Clock } from '../clock.js';
import { atomically } from '../db/atomic.js';
import type { Database } from '../db/index.js';
import { newId } from '../ids.js';
import { nameProblem } from '../names.js';
import { hashPassword, PASSWORD_COST, verifyPassword } from './passwords.js';
import { UsersRepository, type UserRow } from './repository.js';
import { Recovery } from './recovery.js';
import { Invitations, type Invited } from './invitations.js';
import { Sessions, signedIn, type SignedInUser } from './sessions.js';
import {
  checkCredentials,
  EMAIL_MAX,
  emailProblem,
  emailTaken,
  normaliseEmail,
  PASSWORD_MAX,
  ROLES,
  type Role,
  type UsersResult,
} from './credentials.js';
import { ADDRESS_FAILURES, EMAIL_FAILURES, FAILURE_MEMORY_MS, lockFor, takeSignup, waitWords } from './throttles.js';

export { MAX_MEMBERS, INVITE_LIMITS } from './invitations.js';

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
  private readonly sessions: Sessions;
  /** A real hash to check when the email is unknown, so a wrong email costs as long as a wrong password. */
  private decoy: Promise<string> | null = null;

  /** Password reset, change, sign-out everywhere and the proof of the address (recovery.ts). */
  readonly recovery: Recovery;
  /** Colleagues' invitations: limits, the open ones, revoking (invitations.ts). */
  readonly invitations: Invitations;

  constructor(private readonly o: UsersOptions) {
    this.repository = new UsersRepository(o.db);
    this.sessions = new Sessions(this.repository, o.clock);
    this.recovery = new Recovery(o.db, o.clock, o.passwordCost ?? PASSWORD_COST);
    this.invitations = new Invitations({
      db: o.db,
      clock: o.clock,
      accounts: o.accounts,
      repository: this.repository,
      limits: o.inviteLimits,
    });
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
  async signUp(input: {
    email: string;
    password: string;
    accountName: string;
    address: string;
  }): Promise<UsersResult<{ created: boolean }>> {
    if (!this.o.signupPlan)
      return {
        kind: 'closed',
        field: 'form',
        message: 'Sign-up is closed on this service: ask its operator for an invitation link',
      };
    const checked = checkCredentials(input.email, input.password);
    if (checked.kind !== 'ok') return checked;
    const name = input.accountName.trim();
    const nameIssue = nameProblem('Account name', name, { min: 2, max: 100 });
    if (nameIssue) return { kind: 'invalid', field: 'accountName', message: nameIssue };
    const throttled = await takeSignup(this.o.db, this.o.clock, input.address, this.o.signupLimits);
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

  /** A user of the invitation's account, and a session; the invitation is used up with it. */
  async acceptInvite(
    token: string,
    input: { email: string; password: string },
  ): Promise<UsersResult<{ user: SignedInUser; session: string }>> {
    const now = this.o.clock.now();
    const inviteId = hashKey(token);
    const invite = await this.repository.openInvite(inviteId, now);
    if (!invite)
      return {
        kind: 'invalid',
        field: 'form',
        message: 'This invitation link has expired or was already used; ask the operator for a new one',
      };
    const checked = checkCredentials(input.email, input.password);
    if (checked.kind !== 'ok') return checked;
    if (invite.email && invite.email !== checked.value)
      return { kind: 'invalid', field: 'email', message: `This invitation is for ${invite.email}` };
    if (await this.repository.userByEmail(checked.value)) return emailTaken();
    const row = {
      ...(await this.userRow(checked.value, input.password, invite.account_id)),
      role: invite.role ?? 'owner',
    };
    try {
      const [used] = await atomically(this.o.db, [
        this.repository.useInviteQuery(inviteId, now),
        this.repository.insertUserQuery(row),
      ]);
      if (used !== 1) throw new Error('invitation used meanwhile');
    } catch {
      if (await this.repository.userByEmail(checked.value)) return emailTaken();
      return {
        kind: 'invalid',
        field: 'form',
        message: 'This invitation link has expired or was already used; ask the operator for a new one',
      };
    }
    return { kind: 'ok', value: { user: signedIn(row), session: await this.sessions.start(row.id) } };
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
  async signIn(input: {
    email: string;
    password: string;
    address: string;
  }): Promise<UsersResult<{ user: SignedInUser; session: string }>> {
    const now = this.o.clock.now();
    const email = normaliseEmail(input.email);
    const buckets = [`email:${hashKey(email)}`, `ip:${input.address}`];
    const locked = (await this.repository.throttle(buckets)).reduce(
      (until, row) => Math.max(until, row.locked_until),
      0,
    );
    if (locked > now) {
      const retryAfterSeconds = Math.ceil((locked - now) / 1000);
      return {
        kind: 'throttled',
        field: 'form',
        message: `Too many failed sign-ins: try again in ${waitWords(retryAfterSeconds)}`,
        retryAfterSeconds,
      };
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
    return { kind: 'ok', value: { user: signedIn(user), session: await this.sessions.start(user.id) } };
  }

  /** The user a session token belongs to, or null (unknown, tampered or expired). */
  session(token: string): Promise<SignedInUser | null> {
    return this.sessions.user(token);
  }

  signOut(token: string): Promise<void> {
    return this.sessions.end(token);
  }

  /**
   * An owner invites a colleague by email with a role: a one-time link (a week) for that address.
   * Refused for an address that already signs in somewhere, past MAX_MEMBERS and the account's
   * allowance (invitations.ts), and, when the link goes out by mail (`byMail`), until the inviting
   * owner's own address is confirmed: the mail names it, so it must be theirs.
   */
  async inviteColleague(
    accountId: string,
    input: { email: string; role: string },
    inviter: { id: string; email: string },
    o: { byMail: boolean },
  ): Promise<UsersResult<Invited>> {
    const email = normaliseEmail(input.email);
    const problem = emailProblem(email);
    if (problem) return { kind: 'invalid', field: 'email', message: problem };
    if (!(ROLES as readonly string[]).includes(input.role))
      return { kind: 'invalid', field: 'form', message: `Role must be one of ${ROLES.join(', ')}` };
    if (o.byMail && !(await this.recovery.verified(inviter.id))) {
      return {
        kind: 'closed',
        field: 'form',
        message:
          'Confirm your own email address first (Your account sends the link again): the invitation is mailed in your name',
      };
    }
    if (await this.repository.userByEmail(email))
      return {
        kind: 'conflict',
        field: 'email',
        message: 'This email already signs in to an account; each person has one sign-in',
      };
    return this.invitations.create(accountId, { email, role: input.role as Role, invitedBy: inviter.email });
  }

  /** The account's people, oldest first. */
  async members(accountId: string): Promise<{ id: string; email: string; role: Role; joinedAt: number }[]> {
    return (await this.repository.members(accountId)).map((m) => ({
      id: m.id,
      email: m.email,
      role: m.role,
      joinedAt: Number(m.created_at),
    }));
  }

  /**
   * Removes a colleague (their sessions end); never oneself, never the last owner. The account's row
   * is held while its people are read, checked and one deleted, so two owners removing each other at
   * once run one after the other and the second finds only one owner left.
   */
  async removeMember(accountId: string, actorId: string, userId: string): Promise<UsersResult<{ email: string }>> {
    return this.o.db.kysely.transaction().execute(async (trx): Promise<UsersResult<{ email: string }>> => {
      const members = (await this.o.accounts.hold(trx, accountId)) ? await this.repository.members(accountId, trx) : [];
      if (!members.some((m) => m.id === actorId))
        return { kind: 'invalid', field: 'form', message: 'You are no longer on this account' };
      const member = members.find((m) => m.id === userId);
      if (!member) return { kind: 'invalid', field: 'form', message: 'No such person on this account' };
      if (userId === actorId)
        return { kind: 'invalid', field: 'form', message: 'You cannot remove yourself; another owner can' };
      if (member.role === 'owner' && members.filter((m) => m.role === 'owner').length <= 1)
        return { kind: 'invalid', field: 'form', message: 'An account keeps at least one owner' };
      await this.repository.deleteUser(trx, userId);
      return { kind: 'ok', value: { email: member.email } };
    });
  }

  /** A one-time sign-up link's token for an account (the operator's `flightstatus accounts invite`). */
  invite(accountId: string): Promise<{ token: string; expiresAt: number }> {
    return this.invitations.createForOperator(accountId);
  }

  private async userRow(email: string, password: string, accountId: string): Promise<UserRow> {
    const now = this.o.clock.now();
    const password_hash = await hashPassword(password, this.o.passwordCost ?? PASSWORD_COST);
    return {
      id: newId('usr'),
      account_id: accountId,
      email,
      password_hash,
      role: 'owner',
      created_at: now,
      updated_at: now,
      email_verified_at: null,
    };
  }

  private decoyHash(): Promise<string> {
    return (this.decoy ??= hashPassword(randomBytes(16).toString('hex'), this.o.passwordCost ?? PASSWORD_COST));
  }
}

/** A slug from the account name, with a random tail so two "Acme" accounts never collide. */
function slugFor(name: string): string {
  const base = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `${base || 'account'}-${randomBytes(3).toString('hex')}`;
}
