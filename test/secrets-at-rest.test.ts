// No secret in clear in any table, after each kind of write that handles one: API keys (created by the
// operator and on the dashboard), webhook signing secrets (created, rotated, both with an
// Idempotency-Key so that their answers are stored for replay, and replayed), dashboard passwords and
// session tokens. Every table of the database is read whole after each step and searched for each
// secret's random part, on both databases.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../src/db/index.js';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';
import { PASSWORD, Visitor } from './helpers/dashboard.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';

/** Every user table's rows, as text. */
async function everyTable(db: Database): Promise<Map<string, string>> {
  const names =
    db.kind === 'sqlite'
      ? (
          db.sqlite
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            .all() as { name: string }[]
        ).map((r) => r.name)
      : (
          await sql<{
            name: string;
          }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(
            db.kysely,
          )
        ).rows.map((r) => r.name);
  const out = new Map<string, string>();
  for (const name of names) {
    const rows = (await sql`SELECT * FROM ${sql.table(name)}`.execute(db.kysely)).rows;
    out.set(
      name,
      JSON.stringify(rows, (_, v: unknown) =>
        typeof v === 'bigint' ? String(v) : Buffer.isBuffer(v) ? v.toString('latin1') : v,
      ),
    );
  }
  return out;
}

describeEachDatabase('secrets at rest', (kind) => {
  let t: TestApp;
  let receiver: Receiver;
  /** Each secret handed out so far, by what it is. */
  const secrets = new Map<string, string>();
  /** The part of a secret that cannot occur by chance: what follows its prefix. */
  const randomPart = (secret: string) => secret.replace(/^(flt_|whsec_)/, '');

  const scan = async (after: string) => {
    const tables = await everyTable(t.app.db);
    expect(tables.size, 'tables read').toBeGreaterThan(20);
    for (const [what, secret] of secrets) {
      for (const [table, text] of tables)
        expect(text.includes(randomPart(secret)), `${what} in clear in ${table} after ${after}`).toBe(false);
    }
  };

  beforeAll(async () => {
    t = await startTestApp(kind, { pollIntervalMs: 365 * 24 * 3600_000 });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('after every kind of write that hands out or takes a secret', async () => {
    const { key } = await t.account();
    secrets.set('API key (operator)', key);
    await scan('an API key was created');

    const post = (url: string, body: unknown, idempotencyKey: string) =>
      t.app.http.inject({
        method: 'POST',
        url,
        headers: { ...bearer(key), 'idempotency-key': idempotencyKey },
        ...(body === undefined ? {} : { payload: body as object }),
      });
    const created = await post(
      '/api/v1/webhooks',
      { name: 'hook', url: `${receiver.url}/h`, airports: ['OTP'] },
      'create-1',
    );
    expect(created.statusCode).toBe(201);
    const hook = json(created).data as { id: string; secret: string };
    secrets.set('webhook secret (created)', hook.secret);
    await scan('an endpoint was created with an Idempotency-Key');
    // The stored answer still replays, secret included.
    const replayed = await post(
      '/api/v1/webhooks',
      { name: 'hook', url: `${receiver.url}/h`, airports: ['OTP'] },
      'create-1',
    );
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(json(replayed).data.secret).toBe(hook.secret);

    const rotated = await post(`/api/v1/webhooks/${hook.id}/rotate`, undefined, 'rotate-1');
    const secret = json(rotated).data.secret as string;
    expect(secret).not.toBe(hook.secret);
    secrets.set('webhook secret (rotated)', secret);
    await scan('the secret was rotated with an Idempotency-Key');
    expect(json(await post(`/api/v1/webhooks/${hook.id}/rotate`, undefined, 'rotate-1')).data.secret).toBe(secret);

    const tested = await post(`/api/v1/webhooks/${hook.id}/test`, undefined, 'test-1');
    expect(json(tested).data.delivered).toBe(true);
    await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 120 });
    await scan('a test send and a delivery cycle');

    const visitor = new Visitor(t);
    await visitor.signUp('secrets@example.com');
    secrets.set('dashboard password', PASSWORD);
    secrets.set('dashboard session token', visitor.cookies.get('fs_session')!);
    await scan('a dashboard sign-up and sign-in');
    const dashboardKey = await visitor.createKey('from the dashboard');
    secrets.set('API key (dashboard)', dashboardKey);
    await scan('a key was created on the dashboard');

    // The operator's prune (an hour on) keeps nothing of it either, and expired answers go on schedule.
    await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 25 * 3600 });
    await scan('a day of jobs');
    expect(await t.app.db.kysely.selectFrom('idempotency_keys').selectAll().execute()).toEqual([]);
  });
});
