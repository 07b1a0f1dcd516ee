// One-time links a user gets by mail (docs/dashboard.md, "Your account"): a password reset (an hour,
// used once; setting the new password signs out every session, so the old one stops working
// everywhere; a password change or a sign-out everywhere ends every open reset link) and the proof
// of the address (a week). Tokens leave here once; their SHA-256 is stored.
// Asking for a reset answers the same whether the email is known or not, and is limited per email
// and per client address, so the form can neither probe addresses nor flood a mailbox.
import { randomBytes } from 'node:crypto';
import { hashKey } from '../auth/index.js';
import { DAY, HOUR, type Clock } from '../clock.js';
import { forgetWindowsBefore, takeWindowUnits } from '../db/rate-limits.js';
import type { Transaction } from 'kysely';
import type { Database, DatabaseSchema } from '../db/index.js';
import { hashPassword, PASSWORD_COST, verifyPassword } from './passwords.js';

export const RESET_MS = HOUR;
export const VERIFY_MS = 7 * DAY;
/** Reset links asked for per hour: per email (a person retries once or twice) and per client address. */
export const RESET_LIMITS = { perEmail: 3, perAddress: 10 } as const;
const RESET_BUCKET = 'reset:';

export interface IssuedLink {
  token: string;
  userId: string;
  accountId: string;
  email: string;
  expiresAt: number;
}

export type RecoveryResult<T> =
  | { kind: 'ok'; value: T }
  | { kind: 'invalid'; field: 'password' | 'token' | 'current'; message: string }
  | { kind: 'throttled'; message: string; retryAfterSeconds: number };

/** Marks every open reset link of the user used: none of them sets a password any more. */
async function endResets(trx: Transaction<DatabaseSchema>, userId: string, now: number): Promise<void> {
  await trx
    .updateTable('password_resets')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
}

export class Recovery {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly passwordCost = PASSWORD_COST,
  ) {}

  /**
   * A reset link for the user with this (normalised) email, or null when there is none; throttled
   * alike either way.
   */
  async requestReset(email: string, address: string): Promise<RecoveryResult<IssuedLink | null>> {
    const now = this.clock.now();
    const windowStart = Math.floor(now / HOUR) * HOUR;
    const refused = await takeWindowUnits(
      this.db,
      [
        { key: `${RESET_BUCKET}email:${hashKey(email)}`, limit: RESET_LIMITS.perEmail },
        { key: `${RESET_BUCKET}address:${address}`, limit: RESET_LIMITS.perAddress },
      ],
      windowStart,
    );
    if (refused !== null) {
      const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + HOUR - now) / 1000));
      return {
        kind: 'throttled',
        message: `Too many reset links asked for: try again in ${Math.ceil(retryAfterSeconds / 60)} minutes`,
        retryAfterSeconds,
      };
    }
    await forgetWindowsBefore(this.db, RESET_BUCKET, windowStart);
    const user = await this.db.kysely
      .selectFrom('users')
      .select(['id', 'account_id', 'email'])
      .where('email', '=', email)
      .executeTakeFirst();
    if (!user) return { kind: 'ok', value: null };
    return { kind: 'ok', value: await this.issue('password_resets', user, RESET_MS) };
  }

  /** Whether a reset link still works (the page asks before it shows the form). */
  async resetOpen(token: string): Promise<boolean> {
    return (await this.open('password_resets', token)) !== null;
  }

  /** Sets the new password from a reset link: the link is used up and every session ends. */
  async resetPassword(
    token: string,
    password: string,
    check: (password: string) => string | null,
  ): Promise<RecoveryResult<{ email: string }>> {
    const problem = check(password);
    if (problem) return { kind: 'invalid', field: 'password', message: problem };
    const link = await this.open('password_resets', token);
    if (!link)
      return {
        kind: 'invalid',
        field: 'token',
        message: 'This reset link has expired or was already used: ask for a new one',
      };
    const hash = await hashPassword(password, this.passwordCost);
    const now = this.clock.now();
    const used = await this.db.kysely.transaction().execute(async (trx) => {
      const taken = await trx
        .updateTable('password_resets')
        .set({ used_at: now })
        .where('id', '=', link.id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) return false;
      await trx
        .updateTable('users')
        .set({ password_hash: hash, updated_at: now })
        .where('id', '=', link.user_id)
        .execute();
      await trx.deleteFrom('sessions').where('user_id', '=', link.user_id).execute();
      // Other reset links of the user stop working too.
      await endResets(trx, link.user_id, now);
      return true;
    });
    if (!used)
      return {
        kind: 'invalid',
        field: 'token',
        message: 'This reset link has expired or was already used: ask for a new one',
      };
    const user = await this.db.kysely
      .selectFrom('users')
      .select('email')
      .where('id', '=', link.user_id)
      .executeTakeFirstOrThrow();
    return { kind: 'ok', value: { email: user.email } };
  }

  /**
   * Changes the password of a signed-in user who knows the current one; every other session ends,
   * and so does every open reset link (one asked for before must not undo the password chosen now).
   */
  async changePassword(
    userId: string,
    current: string,
    next: string,
    keepSession: string | null,
    check: (password: string) => string | null,
  ): Promise<RecoveryResult<null>> {
    const user = await this.db.kysely
      .selectFrom('users')
      .select(['password_hash'])
      .where('id', '=', userId)
      .executeTakeFirst();
    if (!user || !(await verifyPassword(current.slice(0, 800), user.password_hash)))
      return { kind: 'invalid', field: 'current', message: 'The current password is not right' };
    const problem = check(next);
    if (problem) return { kind: 'invalid', field: 'password', message: problem };
    const hash = await hashPassword(next, this.passwordCost);
    const now = this.clock.now();
    await this.db.kysely.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ password_hash: hash, updated_at: now }).where('id', '=', userId).execute();
      let others = trx.deleteFrom('sessions').where('user_id', '=', userId);
      if (keepSession) others = others.where('id', '!=', hashKey(keepSession));
      await others.execute();
      await endResets(trx, userId, now);
    });
    return { kind: 'ok', value: null };
  }

  /**
   * Ends every session of the user (sign-out everywhere) and every open reset link, which would let
   * whoever holds one back in; how many sessions.
   */
  async signOutEverywhere(userId: string): Promise<number> {
    const now = this.clock.now();
    return this.db.kysely.transaction().execute(async (trx) => {
      const gone = await trx.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
      await endResets(trx, userId, now);
      return Number(gone.numDeletedRows);
    });
  }

  /** A link proving the user reads their address (at sign-up, and when they ask again). */
  async requestVerification(userId: string): Promise<IssuedLink | null> {
    const user = await this.db.kysely
      .selectFrom('users')
      .select(['id', 'account_id', 'email', 'email_verified_at'])
      .where('id', '=', userId)
      .executeTakeFirst();
    if (!user || user.email_verified_at !== null) return null;
    return this.issue('email_verifications', user, VERIFY_MS);
  }

  /** The same for a user known by (normalised) email: sign-up knows no user id. */
  async requestVerificationFor(email: string): Promise<IssuedLink | null> {
    const user = await this.db.kysely.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
    return user ? this.requestVerification(user.id) : null;
  }

  /** Marks the address proven; the email it proved, or null for a link that does not work. */
  async verify(token: string): Promise<string | null> {
    const link = await this.open('email_verifications', token);
    if (!link) return null;
    const now = this.clock.now();
    await this.db.kysely.updateTable('email_verifications').set({ used_at: now }).where('id', '=', link.id).execute();
    await this.db.kysely
      .updateTable('users')
      .set({ email_verified_at: now })
      .where('id', '=', link.user_id)
      .where('email_verified_at', 'is', null)
      .execute();
    const user = await this.db.kysely
      .selectFrom('users')
      .select('email')
      .where('id', '=', link.user_id)
      .executeTakeFirst();
    return user?.email ?? null;
  }

  async verified(userId: string): Promise<boolean> {
    const user = await this.db.kysely
      .selectFrom('users')
      .select('email_verified_at')
      .where('id', '=', userId)
      .executeTakeFirst();
    return user?.email_verified_at != null;
  }

  private async issue(
    table: 'password_resets' | 'email_verifications',
    user: { id: string; account_id: string; email: string },
    lifetime: number,
  ): Promise<IssuedLink> {
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    await this.db.kysely.deleteFrom(table).where('expires_at', '<', now).execute();
    await this.db.kysely
      .insertInto(table)
      .values({ id: hashKey(token), user_id: user.id, created_at: now, expires_at: now + lifetime, used_at: null })
      .execute();
    return { token, userId: user.id, accountId: user.account_id, email: user.email, expiresAt: now + lifetime };
  }

  private async open(table: 'password_resets' | 'email_verifications', token: string) {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const row = await this.db.kysely.selectFrom(table).selectAll().where('id', '=', hashKey(token)).executeTakeFirst();
    if (!row || row.used_at !== null || Number(row.expires_at) <= this.clock.now()) return null;
    return row;
  }
}
