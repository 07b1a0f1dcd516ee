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
   * `expiredBefore` is taken over as if new (and the account's other expired keys are removed).
   */
  async claim(accountId: string, key: string, fingerprint: string, now: number, expiredBefore: number): Promise<Claim> {
    const kysely = this.db.kysely;
    await kysely.deleteFrom('idempotency_keys').where('account_id', '=', accountId).where('created_at', '<=', expiredBefore).execute();
    const inserted = await kysely
      .insertInto('idempotency_keys')
      .values({ account_id: accountId, key, fingerprint, created_at: now, status: null, content_type: null, body: null })
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
    return { kind: 'existing', answer: { fingerprint: row.fingerprint, status: row.status, contentType: row.content_type, body: row.body } };
  }

  async complete(accountId: string, key: string, answer: { status: number; contentType: string | null; body: string }): Promise<void> {
    await this.db.kysely
      .updateTable('idempotency_keys')
      .set({ status: answer.status, content_type: answer.contentType, body: answer.body })
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .execute();
  }

  /** Frees the key: the request failed on our side (5xx) and may be retried with it. */
  async release(accountId: string, key: string): Promise<void> {
    await this.db.kysely.deleteFrom('idempotency_keys').where('account_id', '=', accountId).where('key', '=', key).execute();
  }
}
