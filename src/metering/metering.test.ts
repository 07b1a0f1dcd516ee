// Admission and metering on a real database: credits exact under concurrency, overage, unlimited
// accounts, windows rolling on the clock, and one usage row per charged request.
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DAY } from '../clock.js';
import { describeEachDatabase } from '../../test/helpers/databases.js';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { createKeyLookup, hashKey, versionOf } from '../auth/index.js';
import { withDefaultUser } from '../db/postgres.js';
import type { Admission } from './gate.js';
import { STALE } from './group-commit.js';
import { PostgresMeteringStore } from './store-postgres.js';

describeEachDatabase('metering', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp(kind);
  });
  afterEach(async () => t?.close());

  type Charged = Extract<Admission, { kind: 'admitted' | 'exhausted' }>;
  const draft = (query = '') => ({ at: t.clock.now(), endpoint: 'GET /api/v1/flights/status', query });
  async function charge(key: string): Promise<Charged> {
    const admission = await t.app.gate.admit({ authorization: `Bearer ${key}` }, draft());
    if (admission.kind !== 'admitted' && admission.kind !== 'exhausted')
      throw new Error(`unexpected ${admission.kind}`);
    return admission;
  }

  it('grants exactly the allowance to 300 concurrent charges and refuses the rest', async () => {
    const { key, accountId } = await t.account({ plan: { included: 100, overage: false } });
    const outcomes = await Promise.all(Array.from({ length: 300 }, () => charge(key)));
    const charged = outcomes.filter((o) => o.kind === 'admitted' && o.charge !== null);
    expect(charged).toHaveLength(100);
    expect(outcomes.filter((o) => o.kind === 'exhausted')).toHaveLength(200);
    // Used counts 1..100 exactly once each: no two requests saw the same credit.
    expect(charged.map((o) => o.position.used).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
    expect(charged.find((o) => o.position.used === 100)!.position.remaining).toBe(0);
    expect(await t.app.metering.requestCount(accountId)).toBe(100);
  });

  it('serves past the allowance with overage and counts the overage', async () => {
    const { key } = await t.account({ plan: { included: 5, overage: true } });
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => charge(key)));
    expect(outcomes.every((o) => o.kind === 'admitted')).toBe(true);
    const last = outcomes
      .map((o) => o.position)
      .sort((a, b) => a.used - b.used)
      .at(-1)!;
    expect(last).toMatchObject({ included: 5, used: 8, remaining: 0, overage: 3 });
  });

  it('never refuses an unlimited account and reports no ceiling', async () => {
    const { key } = await t.account({ plan: null, unlimited: true });
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => charge(key)));
    expect(
      outcomes.every((o) => o.kind === 'admitted' && o.position.included === null && o.position.remaining === null),
    ).toBe(true);
  });

  it('starts a fresh allowance when the window rolls, without carrying unused credits', async () => {
    const { key, accountId } = await t.account({ plan: { included: 3, overage: false } });
    const anchor = (await charge(key)).principal.account.windowAnchor;
    t.clock.advance(30 * DAY - 1);
    expect((await charge(key)).position).toMatchObject({ used: 2, remaining: 1 });
    t.clock.advance(1);
    const first = await charge(key);
    expect(first.position).toMatchObject({ used: 1, remaining: 2, included: 3 });
    expect(first.position.window.start).toBe(anchor + 30 * DAY);
    // Idle for a year: the window is the one containing now, still rolling from the anchor.
    t.clock.advance(365 * DAY);
    const later = await charge(key);
    expect(later.position.used).toBe(1);
    expect((later.position.window.start - anchor) % (30 * DAY)).toBe(0);
    expect(later.position.window.end).toBeGreaterThan(t.clock.now());
    expect(await t.app.metering.requestCount(accountId)).toBe(4);
  });

  it('writes each credit together with its usage row, pending until settled with the answer', async () => {
    const { key, accountId, keyId } = await t.account({ plan: { included: 30, overage: false } });
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => t.app.gate.admit({ authorization: `Bearer ${key}` }, draft(`i=${i}`))),
    );
    const charges = outcomes.flatMap((o) => (o.kind === 'admitted' && o.charge ? [o.charge] : []));
    expect(charges).toHaveLength(30);
    const rows = () =>
      t.app.db.kysely.selectFrom('usage_log').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
    // As many rows as credits, the refused asks writing none; each row found by its charge's id.
    expect((await rows()).map((r) => [Number(r.id), r.status])).toEqual(
      charges.map((c) => [c.usageId, 503]).sort((a, b) => a[0]! - b[0]!),
    );
    expect(await t.app.metering.requestCount(accountId)).toBe(30);
    await Promise.all(
      charges.map((c) => t.app.metering.settleUsage({ usageId: c.usageId, status: 200, durationMs: 1.5 })),
    );
    const settled = await rows();
    expect(settled.every((r) => r.status === 200 && r.duration_ms === 1.5)).toBe(true);
    expect(settled[0]).toMatchObject({ key_id: keyId, endpoint: 'GET /api/v1/flights/status', at: t.clock.now() });
    expect(new Set(settled.map((r) => r.query)).size).toBe(30);
    // Voiding takes back the row and the credit together.
    await t.app.metering.voidCharge(charges[0]!);
    expect(await rows()).toHaveLength(29);
    expect(await t.app.metering.requestCount(accountId)).toBe(29);
  });

  it('applies a change made on another process to the next metered request of a key it admitted before', async () => {
    // On PostgreSQL the gate keeps the principals it admitted; the credit statement checks them.
    const other = await startTestApp(kind, { database: t.database });
    try {
      const { key, keyId, accountId } = await t.account({ plan: { included: 100, overage: false } });
      expect((await charge(key)).kind).toBe('admitted');
      const changes = [
        [`/api/admin/v1/keys/${keyId}`, { disabled: true }, 'forbidden'],
        [`/api/admin/v1/keys/${keyId}`, { disabled: false }, 'admitted'],
        [`/api/admin/v1/accounts/${accountId}`, { subscriptionStatus: 'past_due' }, 'payment_required'],
        [`/api/admin/v1/accounts/${accountId}`, { subscriptionStatus: 'active' }, 'admitted'],
        [`/api/admin/v1/accounts/${accountId}`, { disabled: true }, 'forbidden'],
        [`/api/admin/v1/accounts/${accountId}`, { disabled: false }, 'admitted'],
        [`/api/admin/v1/accounts/${accountId}`, { plan: { included: 4 } }, 'exhausted'],
      ] as const;
      for (const [url, patch, expected] of changes) {
        expect((await other.admin('PATCH', url, patch)).statusCode).toBe(200);
        const admission = await t.app.gate.admit({ authorization: `Bearer ${key}` }, draft());
        expect(admission.kind, JSON.stringify(patch)).toBe(expected);
      }
      // Credits equal usage rows: the four admitted, nothing for the refusals.
      expect(await t.app.metering.requestCount(accountId)).toBe(4);
      const rows = await t.app.db.kysely
        .selectFrom('usage_log')
        .select('id')
        .where('account_id', '=', accountId)
        .execute();
      expect(rows).toHaveLength(4);
    } finally {
      await other.close();
    }
  });

  if (kind === 'postgres') {
    it('takes a checked credit only while the key and the account are the versions read', async () => {
      const { db } = t.app;
      if (db.kind !== 'postgres') throw new Error('postgres only');
      const { key, keyId, accountId } = await t.account({ plan: { included: 10, overage: false } });
      // One connection, to see that the credit statement's asynchronous commit stays its own (the
      // session asks for synchronous commits, whatever the test database's default).
      const pool = new pg.Pool({
        connectionString: withDefaultUser(t.database.url),
        max: 1,
        options: '-c synchronous_commit=on',
      });
      // Ended here, before the database is dropped (which ends its connections from the server's side).
      try {
        const store = new PostgresMeteringStore(pool);
        const version = versionOf((await createKeyLookup(db).findByHash(hashKey(key)))!)!;
        const ask = { accountId, windowStart: 0, included: 10, overage: false, planId: null };
        const usage = {
          at: t.clock.now(),
          accountId,
          keyId,
          endpoint: 'GET /x',
          status: 503,
          durationMs: 0,
          query: '',
        };
        const used = () =>
          db.kysely.selectFrom('credit_windows').select('used').where('account_id', '=', accountId).executeTakeFirst();
        expect(await store.takeCheckedCredit(ask, usage, version)).toMatchObject({ granted: true, used: 1 });
        expect((await pool.query('SHOW synchronous_commit')).rows).toEqual([{ synchronous_commit: 'on' }]);

        await t.admin('PATCH', `/api/admin/v1/keys/${keyId}`, { disabled: false }); // a write, even of the same value
        expect(await store.takeCheckedCredit(ask, usage, version)).toBe(STALE);
        expect(await store.takeCheckedCredit(ask, usage, { ...version, account: '1' })).toBe(STALE);
        expect(await used()).toEqual({ used: 1 });
        // A stale principal fails the statement it shares with others of the same window; the
        // unchecked credit asked in the same turn is asked again and granted.
        const [stale, unchecked] = await Promise.all([
          store.takeCheckedCredit(ask, usage, version),
          store.takeCredit(ask, usage),
        ]);
        expect(stale).toBe(STALE);
        expect(unchecked).toMatchObject({ granted: true, used: 2 });
        const fresh = versionOf((await createKeyLookup(db).findByHash(hashKey(key)))!)!;
        expect(await store.takeCheckedCredit(ask, usage, fresh)).toMatchObject({ granted: true, used: 3 });
        expect(
          await t.app.db.kysely.selectFrom('usage_log').select('id').where('account_id', '=', accountId).execute(),
        ).toHaveLength(3);
      } finally {
        await pool.end();
      }
    });
  }
});
