// Airports the operator adds to the catalogue (docs/airports.md, "Adding airports"): through the
// operator API and the CLI, listed to customers, selectable by endpoints created after, polled on
// the simulated world (its flights to and from the 52), delivered with the airport's facts, and never
// widening a subscription made before (spec 2.6).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, itWithoutDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, T0, type TestApp } from './helpers/app.js';
import { runCli } from './helpers/process.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';

describeEachDatabase('airports the operator adds', (kind) => {
  let t: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await startTestApp(kind);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  const call = (key: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.app.http.inject({ method, url, headers: bearer(key), ...(payload ? { payload } : {}) });

  it('adds a reference airport: listed, selectable from then on, polled and delivered; a subscription made before stays as it was', async () => {
    const { key } = await t.account();
    const before = json(
      await call(key, 'POST', '/api/v1/webhooks', { name: 'before', url: `${receiver.url}/before`, airports: ['OTP'] }),
    ).data;
    const refused = await call(key, 'POST', '/api/v1/webhooks', {
      name: 'early',
      url: receiver.url,
      airports: ['FRA'],
    });
    expect(refused.statusCode).toBe(400);
    expect(json(refused).message).toMatch(
      /"FRA" is not a catalogue airport \(GET \/api\/v1\/airports lists the 52 that are\)/,
    );

    const added = await t.admin('POST', '/api/admin/v1/airports', { iata: 'fra', city: 'Frankfurt' });
    expect(added.statusCode).toBe(201);
    expect(json(added).data).toEqual({
      iata: 'FRA',
      icao: 'EDDF',
      name: 'Frankfurt Airport',
      city: 'Frankfurt',
      country: 'Germany',
      countryCode: 'DE',
      timezone: 'Europe/Berlin',
      latitude: 50.0302,
      longitude: 8.5611,
      boards: ['departures', 'arrivals'],
      aliases: [],
      source: 'operator',
      addedAt: new Date(T0).toISOString(),
    });

    // Customers see it in the catalogue, with the specification's fields only.
    const listed = json(await call(key, 'GET', '/api/v1/airports')).data;
    expect(listed.count).toBe(53);
    expect(listed.airports.map((a: { iata: string }) => a.iata)).toEqual(
      [...listed.airports.map((a: { iata: string }) => a.iata)].sort(),
    );
    expect(listed.airports.find((a: { iata: string }) => a.iata === 'FRA')).toEqual({
      iata: 'FRA',
      name: 'Frankfurt Airport',
      city: 'Frankfurt',
      country: 'Germany',
      countryCode: 'DE',
      timezone: 'Europe/Berlin',
      boards: ['departures', 'arrivals'],
      aliases: [],
    });

    // The endpoint made before keeps its one airport; a new one may select FRA.
    expect(json(await call(key, 'GET', `/api/v1/webhooks/${before.id}`)).data.airports).toEqual(['OTP']);
    const fra = await call(key, 'POST', '/api/v1/webhooks', {
      name: 'fra',
      url: `${receiver.url}/fra`,
      airports: ['FRA'],
    });
    expect(fra.statusCode).toBe(201);
    expect(json(fra).data.airports).toEqual(['FRA']);

    // The next poll reads FRA's boards (the simulated world's flights to and from the 52) and the
    // delivery cycle sends their changes, with the airport's facts, to the endpoint that selects it only.
    await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 30 * 60 });
    const events = await t.app.db.kysely.selectFrom('board_events').select('id').where('airport', '=', 'FRA').execute();
    expect(events.length).toBeGreaterThan(10);
    await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 4 * 60 });
    const atFra = () => receiver.received.filter((r) => r.path === '/fra');
    const deadline = Date.now() + 20_000;
    while (atFra().length < events.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(atFra()).toHaveLength(events.length);
    expect(atFra()[0]!.body.airport).toEqual({
      iata: 'FRA',
      name: 'Frankfurt Airport',
      city: 'Frankfurt',
      country: 'Germany',
      timezone: 'Europe/Berlin',
    });
    expect(receiver.received.filter((r) => r.path === '/before' && r.body.airport.iata !== 'OTP')).toEqual([]);
  });

  it('refuses codes that are no reference airport or are in already, and removes only an addition no endpoint selects', async () => {
    const cases: [object, number, RegExp][] = [
      [{ iata: 'QQQ' }, 400, /QQQ is not a reference airport/],
      [{ iata: 'F1' }, 400, /iata must be 3 letters/],
      [{ iata: 'OTP' }, 409, /OTP is already in the catalogue/],
      [{ iata: 'kiv' }, 409, /KIV is already in the catalogue, as an alias of RMO/],
      [{ iata: 'MUC', city: ' ' }, 400, /city must be 1–100 characters/],
      [{ iata: 'MUC', city: 'Munich\u0007' }, 400, /city must be 1–100 characters without control characters/],
      [{ iata: 'MUC', runways: 2 }, 400, /runways/],
      [{}, 400, /iata/],
    ];
    for (const [body, status, message] of cases) {
      const response = await t.admin('POST', '/api/admin/v1/airports', body);
      expect([response.statusCode, json(response).message], JSON.stringify(body)).toEqual([
        status,
        expect.stringMatching(message),
      ]);
    }
    const again = await t.admin('POST', '/api/admin/v1/airports', { iata: 'DUB' });
    expect(again.statusCode).toBe(201);
    expect(json(await t.admin('POST', '/api/admin/v1/airports', { iata: 'DUB' }))).toEqual({
      success: false,
      code: 'conflict',
      message: 'DUB is already in the catalogue',
    });
    const noToken = await t.app.http.inject({
      method: 'POST',
      url: '/api/admin/v1/airports',
      payload: { iata: 'AMS' },
    });
    expect(noToken.statusCode).toBe(401);

    // The specification's airports stay; an addition in use stays until no endpoint selects it.
    const { key } = await t.account();
    const dub = json(
      await call(key, 'POST', '/api/v1/webhooks', { name: 'dub', url: receiver.url, airports: ['OTP', 'DUB'] }),
    ).data;
    expect(json(await t.admin('DELETE', '/api/admin/v1/airports/OTP')).message).toMatch(
      /one of the specification's 52/,
    );
    const inUse = await t.admin('DELETE', '/api/admin/v1/airports/DUB');
    expect([inUse.statusCode, json(inUse).message]).toEqual([
      409,
      expect.stringMatching(/selected by 1 webhook endpoint;/),
    ]);
    expect((await t.admin('DELETE', '/api/admin/v1/airports/ZZZ')).statusCode).toBe(404);
    expect((await call(key, 'DELETE', `/api/v1/webhooks/${dub.id}`)).statusCode).toBe(200);
    const removed = await t.admin('DELETE', '/api/admin/v1/airports/DUB');
    expect(json(removed)).toEqual({ success: true, data: { removed: 'DUB' } });
    const codes = json(await call(key, 'GET', '/api/v1/airports')).data.airports.map((a: { iata: string }) => a.iata);
    expect(codes).not.toContain('DUB');
    const admin = json(await t.admin('GET', '/api/admin/v1/airports')).data;
    expect(
      admin.airports.filter((a: { source: string }) => a.source === 'operator').map((a: { iata: string }) => a.iata),
    ).toEqual(['FRA']);
    expect(admin.count).toBe(53);
  });

  it('another process on the same database knows an addition as soon as a customer selects it', async () => {
    const other = await startTestApp(kind, { database: t.database });
    try {
      expect(json(await t.admin('POST', '/api/admin/v1/airports', { iata: 'AMS' })).data.iata).toBe('AMS');
      const { key } = await t.account();
      const created = await other.app.http.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: bearer(key),
        payload: { name: 'ams', url: receiver.url, airports: ['AMS'] },
      });
      expect([created.statusCode, json(created).data?.airports]).toEqual([201, ['AMS']]);
      const listed = json(await other.get('/api/v1/airports', bearer(key))).data;
      expect(listed.airports.map((a: { iata: string }) => a.iata)).toContain('AMS');
    } finally {
      await other.close();
    }
  });
});

itWithoutDatabase('airports add, list and remove from the CLI', async () => {
  const t = await startTestApp('sqlite');
  try {
    const env = { DATABASE_URL: t.database.url };
    const added = await runCli(['airports', 'add', 'muc', '--city', 'Munich'], env, undefined, 20_000);
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout).data).toMatchObject({ iata: 'MUC', city: 'Munich', source: 'operator' });
    const listed = JSON.parse((await runCli(['airports', 'list'], env, undefined, 20_000)).stdout).data;
    expect(listed.count).toBe(53);
    expect(listed.airports.find((a: { iata: string }) => a.iata === 'MUC')).toMatchObject({
      timezone: 'Europe/Berlin',
    });
    const unknown = await runCli(['airports', 'add', 'QQQ'], env, undefined, 20_000);
    expect([unknown.code, JSON.parse(unknown.stdout).message]).toEqual([
      1,
      expect.stringMatching(/not a reference airport/),
    ]);
    const usage = await runCli(['airports', 'add'], env, undefined, 20_000);
    expect(usage.code).toBe(2);
    const removed = await runCli(['airports', 'remove', 'MUC'], env, undefined, 20_000);
    expect(JSON.parse(removed.stdout)).toEqual({ success: true, data: { removed: 'MUC' } });
  } finally {
    await t.close();
  }
});
