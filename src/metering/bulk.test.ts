// Many credits at once on a real database (bulk.ts): all or none, each with its usage row and the
// writes they pay for; a refusal, a failing check or a failing write leaves nothing behind.
import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeEachDatabase } from '../../test/helpers/databases.js';
import { bearer, startTestApp, type TestApp } from '../../test/helpers/app.js';
import type { Principal } from '../auth/index.js';

describeEachDatabase('many credits at once', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp(kind);
  });
  afterEach(async () => t?.close());

  async function principalOf(key: string): Promise<Principal> {
    const admission = await t.app.gate.admit({ authorization: `Bearer ${key}` }, null);
    if (admission.kind !== 'admitted') throw new Error(`unexpected ${admission.kind}`);
    return admission.principal;
  }
  const usage = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ at: t.clock.now(), endpoint: 'POST /x', query: `n=${i}`, status: 201 }));
  const write = (bucket: string) =>
    t.app.db.kysely.insertInto('rate_limit_windows').values({ bucket, window_start: 0, used: 1 }).compile();
  const state = async (accountId: string) => ({
    credits: await t.app.metering.requestCount(accountId),
    usage: (await t.app.db.kysely.selectFrom('usage_log').select('id').where('account_id', '=', accountId).execute())
      .length,
    written: (await t.app.db.kysely.selectFrom('rate_limit_windows').select('bucket').execute()).map((r) => r.bucket),
  });

  it('takes all the credits with their usage rows and writes, or none', async () => {
    const { key, accountId } = await t.account({ plan: { included: 5, overage: false } });
    const principal = await principalOf(key);
    const now = t.clock.now();
    const paid = await t.app.metering.chargeAll(principal, usage(3), { writes: [write(`${kind}-a`)] }, now);
    expect(paid).toMatchObject({ kind: 'charged', used: 3, position: { used: 3, remaining: 2 } });
    expect(paid.kind === 'charged' && paid.usageIds).toHaveLength(3);
    expect(await state(accountId)).toEqual({ credits: 3, usage: 3, written: [`${kind}-a`] });

    const short = await t.app.metering.chargeAll(principal, usage(3), { writes: [write(`${kind}-b`)] }, now);
    expect(short).toMatchObject({ kind: 'exhausted', used: 3, position: { remaining: 2 } });
    const checked = await t.app.metering.chargeAll(
      principal,
      usage(1),
      {
        check: {
          query: t.app.db.kysely.selectFrom('rate_limit_windows').select('bucket').compile(),
          refuse: () => 'no',
        },
        writes: [write(`${kind}-d`)],
      },
      now,
    );
    expect(checked).toMatchObject({ kind: 'refused', reason: 'no', used: 3 });
    // A write that fails (the row exists) undoes the credits and usage rows taken before it.
    await expect(
      t.app.metering.chargeAll(principal, usage(2), { writes: [write(`${kind}-a`)] }, now),
    ).rejects.toThrow();
    expect(await state(accountId)).toEqual({ credits: 3, usage: 3, written: [`${kind}-a`] });

    // What is left, asked for by five requests of one credit at once: two granted.
    const racing = await Promise.all(
      [1, 2, 3, 4, 5].map((i) =>
        t.app.metering.chargeAll(principal, usage(1), { writes: [write(`${kind}-r${i}`)] }, now),
      ),
    );
    expect(racing.filter((r) => r.kind === 'charged')).toHaveLength(2);
    expect(racing.filter((r) => r.kind === 'exhausted')).toHaveLength(3);
    const after = await state(accountId);
    expect([after.credits, after.usage, after.written.length]).toEqual([5, 5, 3]);
  });

  it.runIf(kind === 'postgres')(
    "keeps the account's credit row out of its check and writes: a lookup of the account meanwhile is not held",
    async () => {
      const { key, accountId } = await t.account({ plan: { included: 10, overage: false } });
      const principal = await principalOf(key);
      const now = t.clock.now();
      const order: string[] = [];
      const slow = t.app.metering
        .chargeAll(
          principal,
          usage(2),
          {
            check: { query: sql`SELECT pg_sleep(1.5) AS slept`.compile(t.app.db.kysely), refuse: () => null },
            writes: [write(`${kind}-slow`)],
          },
          now,
        )
        .then((r) => (order.push('bulk'), r));
      // Once the bulk charge is in its check, a lookup's credit is taken at once.
      for (;;) {
        const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE query LIKE 'SELECT pg_sleep(1.5)%' AND state = 'active'`.execute(t.app.db.kysely);
        if (rows[0]!.n > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const admission = await t.app.gate.admit(bearer(key), {
        at: now,
        endpoint: 'GET /api/v1/flights/status',
        query: '',
      });
      order.push('lookup');
      expect(admission).toMatchObject({ kind: 'admitted', position: { used: 1 } });
      expect(await slow).toMatchObject({ kind: 'charged', used: 3 });
      expect(order).toEqual(['lookup', 'bulk']);
      expect(await state(accountId)).toMatchObject({ credits: 3, usage: 3 });
    },
  );
});
