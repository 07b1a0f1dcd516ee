// The metering service on a real database: credits exact under concurrency, overage, unlimited
// accounts, windows rolling on the clock, and one usage row per charged request.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DAY } from '../clock.js';
import { describeEachDatabase } from '../../test/helpers/databases.js';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import type { Principal } from '../auth/index.js';
import { createKeyLookup } from '../auth/index.js';
import { hashKey } from '../auth/keys.js';
import { toPrincipal } from '../auth/principal.js';

describeEachDatabase('metering', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp(kind);
  });
  afterEach(async () => t?.close());

  async function principalOf(key: string): Promise<Principal> {
    const row = await createKeyLookup(t.app.db).findByHash(hashKey(key));
    return toPrincipal(row!);
  }

  it('grants exactly the allowance to 300 concurrent charges and refuses the rest', async () => {
    const { key, accountId } = await t.account({ plan: { included: 100, overage: false } });
    const principal = await principalOf(key);
    const outcomes = await Promise.all(Array.from({ length: 300 }, () => t.app.metering.charge(principal)));
    const charged = outcomes.filter((o) => o.kind === 'charged');
    expect(charged).toHaveLength(100);
    expect(outcomes.filter((o) => o.kind === 'exhausted')).toHaveLength(200);
    // Used counts 1..100 exactly once each: no two requests saw the same credit.
    expect(charged.map((o) => o.position.used).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(charged.find((o) => o.position.used === 100)!.position.remaining).toBe(0);
    expect(await t.app.metering.requestCount(accountId)).toBe(100);
  });

  it('serves past the allowance with overage and counts the overage', async () => {
    const { key } = await t.account({ plan: { included: 5, overage: true } });
    const principal = await principalOf(key);
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => t.app.metering.charge(principal)));
    expect(outcomes.every((o) => o.kind === 'charged')).toBe(true);
    const last = outcomes.map((o) => o.position).sort((a, b) => a.used - b.used).at(-1)!;
    expect(last).toMatchObject({ included: 5, used: 8, remaining: 0, overage: 3 });
  });

  it('never refuses an unlimited account and reports no ceiling', async () => {
    const { key } = await t.account({ plan: null, unlimited: true });
    const principal = await principalOf(key);
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => t.app.metering.charge(principal)));
    expect(outcomes.every((o) => o.kind === 'charged' && o.position.included === null && o.position.remaining === null)).toBe(true);
  });

  it('starts a fresh allowance when the window rolls, without carrying unused credits', async () => {
    const { key, accountId } = await t.account({ plan: { included: 3, overage: false } });
    const principal = await principalOf(key);
    await t.app.metering.charge(principal);
    t.clock.advance(30 * DAY - 1);
    expect((await t.app.metering.charge(principal)).position).toMatchObject({ used: 2, remaining: 1 });
    t.clock.advance(1);
    const first = await t.app.metering.charge(principal);
    expect(first.position).toMatchObject({ used: 1, remaining: 2, included: 3 });
    expect(first.position.window.start).toBe(principal.account.windowAnchor + 30 * DAY);
    // Idle for a year: the window is the one containing now, still rolling from the anchor.
    t.clock.advance(365 * DAY);
    const later = await t.app.metering.charge(principal);
    expect(later.position.used).toBe(1);
    expect((later.position.window.start - principal.account.windowAnchor) % (30 * DAY)).toBe(0);
    expect(later.position.window.end).toBeGreaterThan(t.clock.now());
    expect(await t.app.metering.requestCount(accountId)).toBe(4);
  });

  it('writes one usage row per call, with every field', async () => {
    const { key, accountId, keyId } = await t.account();
    const principal = await principalOf(key);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        t.app.metering.recordUsage({
          at: t.clock.now() + i,
          accountId: principal.account.id,
          keyId: principal.keyId,
          endpoint: 'GET /api/v1/flights/status',
          status: 200,
          durationMs: 1.5,
          query: `i=${i}`,
        }),
      ),
    );
    const rows = await t.app.db.kysely.selectFrom('usage_log').selectAll().where('account_id', '=', accountId).execute();
    expect(rows).toHaveLength(40);
    expect(rows[0]).toMatchObject({ key_id: keyId, status: 200, endpoint: 'GET /api/v1/flights/status', duration_ms: 1.5 });
  });
});
