// SQL for users, sessions, invitations and the sign-in throttle (cold paths, through Kysely on either
// dialect). Tokens arrive here already hashed.
import type { CompiledQuery, Kysely, Selectable } from 'kysely';
import type { Database, DatabaseSchema, UsersTable } from '../db/index.js';

/** The database, or a transaction in which a caller holds the account (accounts' `hold`). */
export type Executor = Kysely<DatabaseSchema>;

export type UserRow = Selectable<UsersTable>;

export class UsersRepository {
  constructor(private readonly db: Database) {}

  /** The insert of a user, to run in one unit with the account it belongs to. */
  insertUserQuery(row: UserRow): CompiledQuery {
    return this.db.kysely.insertInto('users').values(row).compile();
  }

  /** The account's first owner's email (the address its mail goes to), if it has users. */
  async ownerEmail(accountId: string): Promise<string | null> {
    const row = await this.db.kysely
      .selectFrom('users')
      .select('email')
      .where('account_id', '=', accountId)
      .where('role', '=', 'owner')
      .orderBy('created_at')
      .orderBy('id')
      .executeTakeFirst();
    return row?.email ?? null;
  }

  async userByEmail(email: string): Promise<UserRow | undefined> {
    return this.db.kysely.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  }

  async insertSession(row: { id: string; user_id: string; created_at: number; expires_at: number }): Promise<void> {
    await this.db.kysely.insertInto('sessions').values(row).execute();
  }

  /** The session's user, while the session has not expired. */
  async sessionUser(id: string, now: number): Promise<UserRow | undefined> {
    return this.db.kysely
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .selectAll('users')
      .where('sessions.id', '=', id)
      .where('sessions.expires_at', '>', now)
      .executeTakeFirst();
  }

  async deleteSession(id: string): Promise<void> {
    await this.db.kysely.deleteFrom('sessions').where('id', '=', id).execute();
  }

  /** Expired sessions, removed lazily at each sign-in. */
  async deleteExpired(now: number): Promise<void> {
    await this.db.kysely.deleteFrom('sessions').where('expires_at', '<=', now).execute();
  }

  /** An invitation, on the database or in the caller's transaction. */
  async insertInvite(
    row: {
      id: string;
      ref: string;
      account_id: string;
      created_at: number;
      expires_at: number;
      role?: UserRow['role'];
      email?: string;
      invited_by?: string;
    },
    on: Executor = this.db.kysely,
  ): Promise<void> {
    await on
      .insertInto('invites')
      .values({ ...row, used_at: null })
      .execute();
  }

  /** The account's invitations not used yet and not expired at `now`, oldest first. */
  async openInvites(accountId: string, now: number, on: Executor = this.db.kysely) {
    return on
      .selectFrom('invites')
      .select(['ref', 'email', 'role', 'invited_by', 'created_at', 'expires_at'])
      .where('account_id', '=', accountId)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .orderBy('created_at')
      .orderBy('ref')
      .execute();
  }

  /** Deletes one of the account's unused invitations by its public id; whether there was one. */
  async revokeInvite(accountId: string, ref: string): Promise<boolean> {
    const gone = await this.db.kysely
      .deleteFrom('invites')
      .where('ref', '=', ref)
      .where('account_id', '=', accountId)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(gone.numDeletedRows) > 0;
  }

  /** The account's people, oldest first. */
  async members(
    accountId: string,
    on: Executor = this.db.kysely,
  ): Promise<Pick<UserRow, 'id' | 'email' | 'role' | 'created_at'>[]> {
    return on
      .selectFrom('users')
      .select(['id', 'email', 'role', 'created_at'])
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** The user and what hangs on them (sessions, one-time links), in the caller's transaction. */
  async deleteUser(trx: Executor, id: string): Promise<void> {
    for (const table of ['sessions', 'password_resets', 'email_verifications'] as const)
      await trx.deleteFrom(table).where('user_id', '=', id).execute();
    await trx.deleteFrom('users').where('id', '=', id).execute();
  }

  async openInvite(
    id: string,
    now: number,
  ): Promise<{ account_id: string; role?: UserRow['role'] | null; email?: string | null } | undefined> {
    return this.db.kysely
      .selectFrom('invites')
      .select(['account_id', 'role', 'email'])
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
  }

  /** Marks the invitation used, in one unit with the user it creates; 0 changes when someone used it first. */
  useInviteQuery(id: string, now: number): CompiledQuery {
    return this.db.kysely
      .updateTable('invites')
      .set({ used_at: now })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .compile();
  }

  async throttle(
    buckets: string[],
  ): Promise<{ bucket: string; failures: number; last_failure_at: number; locked_until: number }[]> {
    if (buckets.length === 0) return [];
    return this.db.kysely.selectFrom('signin_throttle').selectAll().where('bucket', 'in', buckets).execute();
  }

  /** One failure more in `bucket`: the count restarts after `resetMs` without failures; `lockFor` decides the lock. */
  async recordFailure(
    bucket: string,
    now: number,
    resetMs: number,
    lockFor: (failures: number) => number,
  ): Promise<void> {
    // Read, then a guarded write: two failures at the same moment may count once, which errs towards
    // the user, never towards a wrong lock.
    const [row] = await this.throttle([bucket]);
    const failures = row && now - row.last_failure_at < resetMs ? row.failures + 1 : 1;
    const locked_until = now + lockFor(failures);
    await this.db.kysely
      .insertInto('signin_throttle')
      .values({ bucket, failures, last_failure_at: now, locked_until })
      .onConflict((oc) => oc.column('bucket').doUpdateSet({ failures, last_failure_at: now, locked_until }))
      .execute();
  }

  async clearFailures(bucket: string): Promise<void> {
    await this.db.kysely.deleteFrom('signin_throttle').where('bucket', '=', bucket).execute();
  }
}
