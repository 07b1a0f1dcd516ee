// SQL for idempotency keys, the same on both dialects. The primary key (account, key) decides who
// runs a request first, across processes; nothing is read and then written in application code.
import type { Database } from '../db/index.js';

export interface StoredAnswer {
  fingerprint: string;
  /** Null while the first request is still being answered. */
  status: number | null;
  contentType: string | null;
  body: string | null;
}

export type Claim = { kind: 'claimed' } | { kind: 'existing'; answer: StoredAnswer };

export class IdempotencyRepository {
  constructor(private readonly db: Database) {}

  /**
   * Claims the key for this request, or returns what it already holds. A key older than
   * `expiredBefore` is taken over as if new (the prune job removes the other expired keys).
   */
  async claim(accountId: string, key: string, fingerprint: string, now: number, expiredBefore: number): Promise<Claim> {
    const kysely = this.db.kysely;
    await kysely
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .where('created_at', '<=', expiredBefore)
      .execute();
    const inserted = await kysely
      .insertInto('idempotency_keys')
      .values({
        account_id: accountId,
        key,
        fingerprint,
        created_at: now,
        status: null,
        content_type: null,
        body: null,
      })
      .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { kind: 'claimed' };
    const row = await kysely
      .selectFrom('idempotency_keys')
      .select(['fingerprint', 'status', 'content_type', 'body'])
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .executeTakeFirst();
    // Deleted between the two statements (expired, or a failed first request): try once more.
    if (!row) return this.claim(accountId, key, fingerprint, now, expiredBefore);
    return {
      kind: 'existing',
      answer: { fingerprint: row.fingerprint, status: row.status, contentType: row.content_type, body: row.body },
    };
  }

  async complete(
    accountId: string,
    key: string,
    answer: { status: number; contentType: string | null; body: string },
  ): Promise<void> {
    await this.db.kysely
      .updateTable('idempotency_keys')
      .set({ status: answer.status, content_type: answer.contentType, body: answer.body })
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .execute();
  }

  /**
   * Deletes every key created at or before `expiredBefore`; returns how many. One statement: the table
   * holds a day of keys, and the hourly run finds an hour's worth to delete.
   */
  async prune(expiredBefore: number): Promise<number> {
    const result = await this.db.kysely
      .deleteFrom('idempotency_keys')
      .where('created_at', '<=', expiredBefore)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Seals, in one transaction, every answer `isSealed` says is in clear (stored by a version before sealing); returns how many. */
  async sealStored(
    isSealed: (stored: string) => boolean,
    seal: (row: { accountId: string; key: string; body: string }) => string,
  ): Promise<number> {
    return this.db.kysely.transaction().execute(async (trx) => {
      const stored = await trx
        .selectFrom('idempotency_keys')
        .select(['account_id', 'key', 'body'])
        .where('body', 'is not', null)
        .execute();
      const rows = stored.filter((row) => !isSealed(row.body!));
      for (const row of rows) {
        await trx
          .updateTable('idempotency_keys')
          .set({ body: seal({ accountId: row.account_id, key: row.key, body: row.body! }) })
          .where('account_id', '=', row.account_id)
          .where('key', '=', row.key)
          .execute();
      }
      return rows.length;
    });
  }

  /** Frees the key: the request failed on our side (5xx) and may be retried with it. */
  async release(accountId: string, key: string): Promise<void> {
    await this.db.kysely
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .execute();
  }
}
