// Watches end to end (issue 47, first slice): a real service on each database, through HTTP. Created
// one at a time, as a JSON array or a CSV upload, checked as batches check their rows, bound to the
// account's own webhook endpoints, each paid for with one credit and its usage row, all or nothing.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { groundTruth } from '../src/sim/index.js';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';

const DATE = '2026-02-20';
const URL_ = '/api/v1/watches';

describeEachDatabase('watches', (kind) => {
  let t: TestApp;
  let key: string;
  let accountId: string;
  let hookA: string;
  let hookB: string;
  let other: { key: string; accountId: string; hook: string };

  const post = (body: unknown, o: { csv?: boolean; query?: string; as?: string } = {}) =>
    t.app.http.inject({
      method: 'POST',
      url: `${URL_}${o.query ?? ''}`,
      headers: { ...bearer(o.as ?? key), 'content-type': o.csv ? 'text/csv' : 'application/json' },
      payload: o.csv || typeof body === 'string' ? (body as string) : JSON.stringify(body),
    });
  const del = (id: string, as = key) =>
    t.app.http.inject({ method: 'DELETE', url: `${URL_}/${id}`, headers: bearer(as) });
  const used = async (k = key) => Number((await t.get('/api/v1/account', bearer(k))).headers['x-credits-used']);
  const endpoint = async (k: string, name: string) =>
    json(
      await t.app.http.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: bearer(k),
        payload: { name, url: 'http://127.0.0.1:9/hook', airports: ['OTP'] },
      }),
    ).data.id as string;
  /** The account's watch usage rows and its watches, straight from the tables: what a refusal must leave as it was. */
  const written = async (account = accountId) => {
    const usage = await t.app.db.kysely
      .selectFrom('usage_log')
      .select(['query', 'status'])
      .where('account_id', '=', account)
      .where('endpoint', '=', 'POST /api/v1/watches')
      .execute();
    const watches = await t.app.db.kysely
      .selectFrom('flight_watches')
      .select('id')
      .where('account_id', '=', account)
      .execute();
    return { usage, watches: watches.length };
  };
  const flight = (n: number) => `W6${String(1000 + n)}`;

  beforeAll(async () => {
    t = await startTestApp(kind);
    ({ key, accountId } = await t.account({ plan: { included: 20_000, overage: false } }));
    hookA = await endpoint(key, 'a');
    hookB = await endpoint(key, 'b');
    const o = await t.account();
    other = { ...o, hook: await endpoint(o.key, 'other') };
  });
  afterAll(() => t.close());

  it('creates one watch from a JSON object for one credit and its usage row; asked again, returns it uncharged', async () => {
    const before = await used();
    const body = {
      flightNumber: 'w6 3101',
      flightDate: DATE,
      origin: 'otp',
      reference: 'policy-1',
      endpoints: [hookA],
    };
    const created = await post(body);
    expect(created.statusCode, created.body).toBe(201);
    const watch = json(created).data;
    expect(watch).toMatchObject({
      state: 'active',
      flightNumber: 'W63101',
      flightDate: DATE,
      dateBasis: 'utc',
      origin: 'OTP',
      destination: null,
      reference: 'policy-1',
      endpoints: [hookA],
      endedAt: null,
    });
    expect(watch.id).toMatch(/^wch_[0-9A-Za-z]{20}$/);
    expect(created.headers.location).toBe(`${URL_}/${watch.id}`);
    expect(Number(created.headers['x-credits-used'])).toBe(before + 1);
    expect(await used()).toBe(before + 1);
    const rows = (await written()).usage.filter((u) => u.query.includes(watch.id));
    expect(rows).toEqual([
      { query: `watch=${watch.id}&flightNumber=W63101&flightDate=${DATE}&origin=OTP`, status: 201 },
    ]);

    const again = await post(body);
    expect(again.statusCode).toBe(200);
    expect(json(again).data.id).toBe(watch.id);
    expect(await used()).toBe(before + 1);
    // Another reference is another watch (another policy on the same flight).
    const second = await post({ ...body, reference: 'policy-2' });
    expect(second.statusCode).toBe(201);
    expect(json(second).data.id).not.toBe(watch.id);
    expect(await used()).toBe(before + 2);
  });

  it('creates many from a JSON array: a row asking for a watch twice gets one, N watches take N credits with N usage rows', async () => {
    const before = await used();
    const { usage: usageBefore } = await written();
    const rows = [
      { flightNumber: flight(1), flightDate: DATE, reference: 'm-1', endpoints: [hookA, hookB] },
      { flightNumber: flight(2), flightDate: DATE, reference: 'm-2', endpoints: [hookB] },
      { flightNumber: flight(1), flightDate: DATE, reference: 'm-1', endpoints: [hookB, hookA] },
      { flight: flight(3), date: DATE, dateBasis: 'local', reference: 'm-3' },
    ];
    const response = await post(rows, { query: `?endpoints=${hookA}` });
    expect(response.statusCode, response.body).toBe(201);
    const data = json(response).data;
    expect(data).toMatchObject({ created: 3, existing: 0, credits: 3, invalid: [], ignoredColumns: [] });
    expect(data.watches.map((w: any) => [w.flightNumber, w.rows, w.endpoints])).toEqual([
      [flight(1), [1, 3], [hookA, hookB].sort()],
      [flight(2), [2], [hookB]],
      [flight(3), [4], [hookA]],
    ]);
    expect(data.watches[2].dateBasis).toBe('local');
    expect(await used()).toBe(before + 3);
    const { usage } = await written();
    expect(usage.length).toBe(usageBefore.length + 3);
    for (const w of data.watches) expect(usage.filter((u) => u.query.startsWith(`watch=${w.id}&`))).toHaveLength(1);

    // The same request again: every watch exists, nothing is taken.
    const again = await post(rows, { query: `?endpoints=${hookA}` });
    expect(again.statusCode).toBe(200);
    expect(json(again).data).toMatchObject({ created: 0, existing: 3, credits: 0 });
    expect(await used()).toBe(before + 3);
  });

  it('creates many from a CSV upload, with the endpoints of all rows in the query', async () => {
    const before = await used();
    const csv =
      '\uFEFFFlight Number,Date,Reference,Notes\r\n' +
      `${flight(10)},${DATE},"Smith, J.",x\r\n` +
      `${flight(11)},${DATE},R-2,\r\n`;
    const response = await post(csv, { csv: true, query: `?endpoints=${hookA},${hookB}` });
    expect(response.statusCode, response.body).toBe(201);
    const data = json(response).data;
    expect(data).toMatchObject({ created: 2, credits: 2, ignoredColumns: ['Notes'] });
    expect(data.watches.map((w: any) => w.reference)).toEqual(['Smith, J.', 'R-2']);
    expect(data.watches.every((w: any) => w.endpoints.length === 2)).toBe(true);
    expect(await used()).toBe(before + 2);

    const noEndpoints = await post(csv.replace('Smith', 'Jones'), { csv: true });
    expect(noEndpoints.statusCode).toBe(400);
    expect(json(noEndpoints).message).toMatch(/row 1: endpoints is required/);
    const column = await post(`flightNumber,flightDate,endpoints\r\n${flight(12)},${DATE},${hookA}\r\n`, {
      csv: true,
    });
    expect(column.statusCode).toBe(400);
    expect(json(column).message).toMatch(/endpoints query parameter/);
  });

  it('refuses a CSV with bad rows as batches refuse them, writing nothing; skipInvalid=1 creates the valid ones', async () => {
    const before = { credits: await used(), ...(await written()) };
    const csv =
      'flightNumber,flightDate,reference\r\n' +
      `${flight(20)},${DATE},ok\r\n` +
      `${flight(21)},20/02/2026,R-2\r\n` +
      `,${DATE},R-3\r\n`;
    const refused = await post(csv, { csv: true, query: `?endpoints=${hookA}` });
    expect(refused.statusCode).toBe(400);
    expect(json(refused)).toMatchObject({ success: false, code: 'invalid_request' });
    const message = json(refused).message as string;
    expect(message).toMatch(/2 of 3 rows are invalid/);
    expect(message).toMatch(/row 2: flightDate "20\/02\/2026" is a spreadsheet's date format/);
    expect(message).toMatch(/row 3: .*flightNumber/);
    expect(message).toMatch(/skipInvalid=1/);
    expect(await used()).toBe(before.credits);
    expect(await written()).toEqual({ usage: before.usage, watches: before.watches });

    const accepted = await post(csv, { csv: true, query: `?endpoints=${hookA}&skipInvalid=1` });
    expect(accepted.statusCode).toBe(201);
    const data = json(accepted).data;
    expect(data).toMatchObject({ created: 1, credits: 1 });
    expect(data.invalid.map((i: any) => i.row)).toEqual([2, 3]);
    expect(await used()).toBe(before.credits + 1);
  });

  it('refuses one watch that is invalid, saying why, with no hint of creating the valid ones (there are none)', async () => {
    const before = { credits: await used(), ...(await written()) };
    const refused = await post({ flightNumber: flight(22), flightDate: '01/03/2026', endpoints: [hookA] });
    expect(refused.statusCode).toBe(400);
    const message = json(refused).message as string;
    expect(message).toMatch(/^The watch is invalid and was not created: flightDate "01\/03\/2026"/);
    expect(message).not.toMatch(/skipInvalid/);
    expect(await used()).toBe(before.credits);
    expect(await written()).toEqual({ usage: before.usage, watches: before.watches });
  });

  it("refuses an endpoint that is not the account's, naming it, and writes nothing", async () => {
    const before = { credits: await used(), ...(await written()) };
    const body = { flightNumber: flight(30), flightDate: DATE, endpoints: [hookA, other.hook] };
    const foreign = await post(body);
    expect(foreign.statusCode).toBe(400);
    expect(json(foreign).message).toContain(`"${other.hook}"`);
    expect(json(foreign).message).toMatch(/is not a webhook endpoint of this account/);
    const unknown = await post({ ...body, endpoints: ['wh_nope'] });
    expect(unknown.statusCode).toBe(400);
    expect(json(unknown).message).toContain('"wh_nope"');
    const empty = await post({ ...body, endpoints: [] });
    expect(json(empty).message).toMatch(/at least one webhook endpoint/);
    const wrongType = await post({ ...body, endpoints: hookA });
    expect(json(wrongType).message).toMatch(/endpoints must be an array/);
    expect(await used()).toBe(before.credits);
    expect(await written()).toEqual({ usage: before.usage, watches: before.watches });
  });

  it("answers another account's watch as unknown (404) on GET and DELETE, and lists only the account's own", async () => {
    const id = json(await post({ flightNumber: flight(40), flightDate: DATE, endpoints: [hookA] })).data.id;
    expect((await t.get(`${URL_}/${id}`, bearer(other.key))).statusCode).toBe(404);
    const foreignDelete = await del(id, other.key);
    expect(foreignDelete.statusCode).toBe(404);
    expect(json(foreignDelete)).toMatchObject({ success: false, code: 'not_found' });
    expect(json(await t.get(`${URL_}/${id}`, bearer(key))).data.state).toBe('active');
    expect(json(await t.get(URL_, bearer(other.key))).data.watches).toEqual([]);
    expect((await t.get(`${URL_}/wch_00000000000000000000`, bearer(key))).statusCode).toBe(404);
  });

  it('lists with filters (state, reference, flightDate, from/to) and pages newest first', async () => {
    const own = await t.account();
    const hook = await endpoint(own.key, 'list');
    const dates = ['2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13'];
    const ids: string[] = [];
    for (const [i, date] of dates.entries()) {
      t.clock.advance(1000);
      const r = await post(
        { flightNumber: flight(50 + i), flightDate: date, reference: i % 2 ? 'odd' : 'even', endpoints: [hook] },
        { as: own.key },
      );
      ids.push(json(r).data.id);
    }
    const list = async (query: string) => json(await t.get(`${URL_}${query}`, bearer(own.key))).data;
    expect((await list('')).watches.map((w: any) => w.id)).toEqual([...ids].reverse());
    expect((await list('?reference=odd')).watches.map((w: any) => w.id)).toEqual([ids[3], ids[1]]);
    expect((await list('?flightDate=2026-03-11')).watches.map((w: any) => w.id)).toEqual([ids[1]]);
    expect((await list('?from=2026-03-11&to=2026-03-12')).watches.map((w: any) => w.id)).toEqual([ids[2], ids[1]]);
    expect((await del(ids[0]!, own.key)).statusCode).toBe(200);
    expect((await list('?state=stopped')).watches.map((w: any) => w.id)).toEqual([ids[0]]);
    expect((await list('?state=active')).watches).toHaveLength(3);

    const first = await list('?limit=3');
    expect(first.watches.map((w: any) => w.id)).toEqual([ids[3], ids[2], ids[1]]);
    expect(first).toMatchObject({ hasMore: true, nextAfter: ids[1] });
    const second = await list(`?limit=3&after=${first.nextAfter}`);
    expect(second).toMatchObject({ hasMore: false, nextAfter: null });
    expect(second.watches.map((w: any) => w.id)).toEqual([ids[0]]);

    for (const bad of ['?state=asleep', '?flightDate=2026-02-30', '?limit=0', '?after=wch_nope', '?colour=red']) {
      const response = await t.get(`${URL_}${bad}`, bearer(own.key));
      expect(response.statusCode, bad).toBe(400);
      expect(json(response).code).toBe('invalid_request');
    }
  });

  it('stops a watch with DELETE (again: as it is); the same watch asked for afterwards is a new one, charged', async () => {
    const body = { flightNumber: flight(60), flightDate: DATE, endpoints: [hookB] };
    const id = json(await post(body)).data.id;
    t.clock.advance(5000);
    const stopped = await del(id);
    expect(stopped.statusCode).toBe(200);
    expect(json(stopped).data).toMatchObject({ id, state: 'stopped', endedAt: new Date(t.clock.now()).toISOString() });
    const again = await del(id);
    expect(again.statusCode).toBe(200);
    expect(json(again).data.endedAt).toBe(json(stopped).data.endedAt);
    const before = await used();
    const renewed = await post(body);
    expect(renewed.statusCode).toBe(201);
    expect(json(renewed).data.id).not.toBe(id);
    expect(await used()).toBe(before + 1);
  });

  it('shows the flight as the service holds it (a settled record), else null, and names its events', async () => {
    const delayed = groundTruth(t.app.sim!, DATE, { status: 'delayed' })[0]!;
    const query = new URLSearchParams({ flightNumber: delayed.flightNumber, flightDate: DATE, origin: delayed.origin });
    const unknownId = json(
      await post({ flightNumber: delayed.flightNumber, flightDate: DATE, origin: delayed.origin, endpoints: [hookA] }),
    ).data.id;
    const before = json(await t.get(`${URL_}/${unknownId}`, bearer(key))).data;
    expect(before).toMatchObject({ id: unknownId, flight: null, events: [], endpoints: [hookA] });
    // A lookup of the settled disruption stores it; the watch then shows it, with no credit taken.
    expect((await t.get(`/api/v1/flights/status?${query}`, bearer(key))).statusCode).toBe(200);
    const credits = await used();
    const after = json(await t.get(`${URL_}/${unknownId}`, bearer(key))).data;
    expect(after.flight).toMatchObject({ flightNumber: delayed.flightNumber, selected: { status: 'delayed' } });
    expect(after.flight.meta.cached).toBe(true);
    expect(await used()).toBe(credits);
  });

  it('refuses a request it cannot pay for whole (429), writing nothing; pays for one that fits', async () => {
    const small = await t.account({ plan: { included: 3, overage: false } });
    const hook = await endpoint(small.key, 'small');
    const rows = [1, 2, 3, 4, 5].map((i) => ({ flightNumber: flight(70 + i), flightDate: DATE, endpoints: [hook] }));
    const refused = await post(rows, { as: small.key });
    expect(refused.statusCode).toBe(429);
    expect(json(refused)).toMatchObject({ success: false, code: 'credits_exhausted' });
    expect(json(refused).message).toMatch(/creates 5 watches.*3 left.*nothing was created/);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(refused.headers['x-credits-remaining']).toBe('3');
    expect(await used(small.key)).toBe(0);
    expect(await written(small.accountId)).toEqual({ usage: [], watches: 0 });

    const paid = await post(rows.slice(0, 3), { as: small.key });
    expect(paid.statusCode).toBe(201);
    expect(paid.headers['x-credits-used']).toBe('3');
    expect(paid.headers['x-credits-remaining']).toBe('0');
    expect(await used(small.key)).toBe(3);
    const after = await written(small.accountId);
    expect(after.usage).toHaveLength(3);
    expect(after.watches).toBe(3);
    // A watch that already exists costs nothing, even with the allowance spent.
    expect((await post(rows[0], { as: small.key })).statusCode).toBe(200);
  });

  it('bills the watches past the allowance as overage when the plan allows it, each usage row saying so', async () => {
    const billed = await t.account({ plan: { included: 2, overage: true } });
    const hook = await endpoint(billed.key, 'overage');
    const rows = [1, 2, 3].map((i) => ({ flightNumber: flight(80 + i), flightDate: DATE, endpoints: [hook] }));
    const response = await post(rows, { as: billed.key });
    expect(response.statusCode).toBe(201);
    expect(response.headers['x-credits-overage']).toBe('1');
    const usage = await t.app.db.kysely
      .selectFrom('usage_log')
      .select(['overage'])
      .where('account_id', '=', billed.accountId)
      .orderBy('id')
      .execute();
    expect(usage.map((u) => Number(u.overage))).toEqual([0, 0, 1]);
  });

  it('makes one watch of the same request sent five times at once, taking one credit', async () => {
    const body = { flightNumber: flight(90), flightDate: DATE, reference: 'race', endpoints: [hookA] };
    const before = await used();
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(body)));
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    // The others found it (200) or met it being written (409, nothing taken).
    expect(
      statuses.every((s) => [200, 201, 409].includes(s)),
      statuses.join(),
    ).toBe(true);
    expect(new Set(answers.filter((a) => a.statusCode < 300).map((a) => json(a).data.id)).size).toBe(1);
    expect(await used()).toBe(before + 1);
  });

  it('takes a deleted endpoint out of its watches, and stops those it leaves with none', async () => {
    const hook = await endpoint(key, 'short-lived');
    const id = json(await post({ flightNumber: flight(95), flightDate: DATE, endpoints: [hookA, hook] })).data.id;
    const alone = json(await post({ flightNumber: flight(96), flightDate: DATE, endpoints: [hook] })).data.id;
    const removed = await t.app.http.inject({
      method: 'DELETE',
      url: `/api/v1/webhooks/${hook}`,
      headers: bearer(key),
    });
    expect(removed.statusCode).toBe(200);
    expect(json(await t.get(`${URL_}/${id}`, bearer(key))).data).toMatchObject({ state: 'active', endpoints: [hookA] });
    // It would send to no one: stopped with the endpoint, and no longer counted among the active ones.
    expect(json(await t.get(`${URL_}/${alone}`, bearer(key))).data).toMatchObject({
      state: 'stopped',
      endedReason: 'endpoint_deleted',
      endpoints: [],
    });
    expect(json(await t.get(`${URL_}/${alone}`, bearer(key))).data.endedAt).not.toBeNull();
  });

  it('refuses what is not a watch request with the error envelope, and bodies over its limit with a 413 naming it', async () => {
    const cases: [unknown, RegExp][] = [
      ['{"flightNumber": ', /JSON/i],
      ['"W63101"', /one watch .*JSON array.*CSV/],
      [{ watches: [{ flightNumber: 'W63101' }] }, /one watch .*JSON array/],
      [[], /no rows/],
      [[{ flightNumber: true, flightDate: DATE, endpoints: [hookA] }], /row 1: flightNumber must be a string/],
      [Array.from({ length: 10_001 }, () => ({ flightNumber: 'W63101', flightDate: DATE })), /10,000/],
    ];
    for (const [body, message] of cases) {
      const response = await post(body);
      expect(response.statusCode, String(body).slice(0, 40)).toBe(400);
      expect(Object.keys(json(response)).sort()).toEqual(['code', 'message', 'success']);
      expect(json(response).message).toMatch(message);
    }
    const big = await post('x'.repeat(5 * 1024 * 1024), { csv: true });
    expect(big.statusCode).toBe(413);
    expect(json(big)).toEqual({
      success: false,
      code: 'payload_too_large',
      message: "Request body is larger than this route's limit of 4194304 bytes (4 MiB)",
    });
    const query = await post(
      { flightNumber: 'W63101', flightDate: DATE, endpoints: [hookA] },
      { query: '?colour=red' },
    );
    expect(query.statusCode).toBe(400);
    expect(json(query).message).toMatch(/unknown parameter "colour"/);
  });

  it('holds an account to 10,000 active watches, naming the limit; stopping one makes room', async () => {
    const full = await t.account({ plan: { included: 20_000, overage: false } });
    const hook = await endpoint(full.key, 'full');
    const rows = Array.from({ length: 10_000 }, (_, i) => ({
      flightNumber: flight(i % 9000),
      flightDate: DATE,
      reference: `p-${i}`,
      endpoints: [hook],
    }));
    const created = await post(rows, { as: full.key });
    expect(created.statusCode, created.body.slice(0, 300)).toBe(201);
    const data = json(created).data;
    expect(data.created).toBe(10_000);
    expect(await used(full.key)).toBe(10_000);

    const one = { flightNumber: 'W69999', flightDate: DATE, endpoints: [hook] };
    const refused = await post(one, { as: full.key });
    expect(refused.statusCode).toBe(409);
    expect(json(refused).message).toMatch(/at most 10,000 active watches/);
    expect(await used(full.key)).toBe(10_000);
    expect((await del(data.watches[0].id, full.key)).statusCode).toBe(200);
    // Room for one: of two requests at once, one is created and the other refused, whichever comes first.
    const both = await Promise.all([
      post(one, { as: full.key }),
      post({ ...one, reference: 'other' }, { as: full.key }),
    ]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    expect(await used(full.key)).toBe(10_001);
    expect(json(await t.get(`${URL_}?state=active&limit=1`, bearer(full.key))).data.watches).toHaveLength(1);
  });
});
