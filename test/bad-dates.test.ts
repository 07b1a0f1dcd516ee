// A date or an instant from outside that does not exist (month 13 or 00, day 00, 30 February, 29
// February of a common year, year 0000, 9999-99-99, a timestamp with a bad part) is a 400 naming
// the field, on every door that takes one, and never an error in the log (an invalid Date's
// toISOString throws a RangeError: that was a 500 with a stack trace on /api/v1/compensation).
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { describeEachDatabase } from './helpers/databases.js';
import { Visitor } from './helpers/dashboard.js';
import { ADMIN_TOKEN, bearer, json, startTestApp, type TestApp } from './helpers/app.js';

/** Days that do not exist, or are not written as one. */
const BAD_DAYS = [
  '2026-13-01',
  '2026-00-10',
  '2026-01-00',
  '2026-01-32',
  '9999-99-99',
  '2026-02-30',
  '2026-02-29',
  '2025-04-31',
  '0000-01-01',
  '0000-00-00',
  '275760-09-14',
  '+275760-09-13',
  '-000001-01-01',
  '99999999-01-01',
  '2026-1-01',
  '2026-02-20T',
];
/** Instants whose date or time part does not exist. */
const BAD_INSTANTS = [
  ...BAD_DAYS,
  '2026-13-01T10:00:00Z',
  '2026-02-30T06:00:00Z',
  '2026-02-20T25:00:00Z',
  '2026-02-20T10:61:00Z',
  '2026-02-20T10:00:61Z',
  '2026-02-20T10:00:00+25:00',
  '2026-02-20T10:00:00+05:61',
  '9999-99-99T99:99:99Z',
  '0000-01-01T00:00:00Z',
];

describeEachDatabase('dates and instants that do not exist', (kind) => {
  let t: TestApp;
  let logged: string;
  let key: string;
  let hook: string;
  let accountId: string;
  beforeAll(async () => {
    logged = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logged += String(chunk);
        done();
      },
    });
    t = await startTestApp(kind, { logger: createLogger('info', sink) });
    const account = await t.account({ unlimited: true });
    key = account.key;
    accountId = account.accountId;
    const created = await t.app.http.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(key),
      payload: { name: 'claims', url: 'http://127.0.0.1:9/hooks', airports: ['OTP'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    hook = json(created).data.id;
  });
  afterAll(async () => t?.close());

  const refusedNaming = async (
    doors: { name: string; field: RegExp; send: (value: string) => Promise<{ statusCode: number; body: string }> }[],
    values: string[],
  ) => {
    const wrong: string[] = [];
    for (const door of doors) {
      for (const value of values) {
        const response = await door.send(value);
        const message = response.statusCode === 400 ? String(JSON.parse(response.body).message) : '';
        if (response.statusCode !== 400 || !door.field.test(message))
          wrong.push(`${door.name} ${JSON.stringify(value)}: ${response.statusCode} ${response.body.slice(0, 160)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(logged).not.toMatch(/"level":(50|60)/);
  };
  const get = (url: string, headers = bearer(key)) => t.app.http.inject({ method: 'GET', url, headers });
  const send = (method: 'POST', url: string, payload: unknown, headers: Record<string, string> = bearer(key)) =>
    t.app.http.inject({ method, url, headers, payload: payload as object });
  const q = encodeURIComponent;

  it('refuses them as days on the API, naming the field', async () => {
    await refusedNaming(
      [
        {
          name: 'compensation',
          field: /flightDate/,
          send: (d) =>
            get(`/api/v1/compensation?origin=OTP&destination=LTN&airline=W6&outcome=cancelled&flightDate=${q(d)}`),
        },
        {
          name: 'status',
          field: /flightDate/,
          send: (d) => get(`/api/v1/flights/status?flightNumber=W63101&flightDate=${q(d)}`),
        },
        {
          name: 'status (alias)',
          field: /flightDate/,
          send: (d) => get(`/api/v1/flights/status?flightNumber=W63101&date=${q(d)}`),
        },
        {
          name: 'evidence',
          field: /flightDate/,
          send: (d) => get(`/api/v1/flights/evidence?flightNumber=W63101&flightDate=${q(d)}`),
        },
        {
          name: 'batch (JSON)',
          field: /row 1.*flightDate|flightDate.*row 1/i,
          send: (d) => send('POST', '/api/v1/batches', [{ flightNumber: 'W63101', flightDate: d }]),
        },
        {
          name: 'batch (CSV)',
          field: /row 1.*flightDate|flightDate.*row 1/i,
          send: (d) =>
            t.app.http.inject({
              method: 'POST',
              url: '/api/v1/batches',
              headers: { ...bearer(key), 'content-type': 'text/csv' },
              payload: `flightNumber,flightDate\nW63101,${d}\n`,
            }),
        },
        {
          name: 'deliveries from',
          field: /from/,
          send: (d) => get(`/api/v1/webhooks/${hook}/deliveries?from=${q(d)}`),
        },
        { name: 'deliveries to', field: /\bto\b/, send: (d) => get(`/api/v1/webhooks/${hook}/deliveries?to=${q(d)}`) },
      ],
      BAD_DAYS,
    );
  });

  it('refuses them as instants on the API, naming the field', async () => {
    await refusedNaming(
      [
        {
          name: 'resend since',
          field: /since/,
          send: (d) => send('POST', `/api/v1/webhooks/${hook}/deliveries/resend`, { since: d }),
        },
      ],
      BAD_INSTANTS,
    );
  });

  it('refuses them on the operator API, naming the field', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    await refusedNaming(
      [
        {
          name: 'usage from',
          field: /query\.from/,
          send: (d) => get(`/api/admin/v1/accounts/${accountId}/usage?from=${q(d)}`, admin),
        },
        {
          name: 'usage to',
          field: /query\.to/,
          send: (d) => get(`/api/admin/v1/accounts/${accountId}/usage?to=${q(d)}`, admin),
        },
        {
          name: 'sim flights',
          field: /query\.date/,
          send: (d) => get(`/api/admin/v1/sim/flights?date=${q(d)}`, admin),
        },
      ],
      BAD_DAYS,
    );
    await refusedNaming(
      [{ name: 'clock to', field: /body\.to/, send: (d) => send('POST', '/api/admin/v1/clock', { to: d }, admin) }],
      BAD_INSTANTS,
    );
  });

  it('refuses them on the dashboard with the form field named inline', async () => {
    const v = new Visitor(t);
    await v.signUp('dates@example.com');
    const own = await t.app.http.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(await v.createKey('dates')),
      payload: { name: 'mine', url: 'http://127.0.0.1:9/hooks', airports: ['OTP'] },
    });
    const page = `/dashboard/webhooks/${json(own).data.id}`;
    const wrong: string[] = [];
    for (const d of BAD_DAYS) {
      await v.get('/dashboard/lookup');
      const lookup = await v.post('/dashboard/lookup', {
        flightNumber: 'W63101',
        flightDate: d,
        origin: '',
        destination: '',
      });
      if (lookup.statusCode !== 400 || !/id="f-flightDate-error"/.test(lookup.body))
        wrong.push(`lookup ${d}: ${lookup.statusCode}`);
      for (const name of ['from', 'to']) {
        const filtered = await v.get(`${page}?${name}=${q(d)}`);
        if (
          filtered.statusCode !== 400 ||
          !new RegExp(`${name[0]!.toUpperCase()}${name.slice(1)} (must|is not)`).test(filtered.body)
        )
          wrong.push(`filter ${name} ${d}: ${filtered.statusCode}`);
      }
    }
    await v.post(`${page}/enable`);
    for (const since of [
      '2026-13-01T06:00',
      '2026-02-29T06:00',
      '2026-02-20T24:30',
      '0000-01-01T00:00',
      '9999-99-99T99:99',
    ]) {
      await v.get(page);
      const resend = await v.post(`${page}/deliveries/resend`, { since, states: 'skipped' });
      if (resend.statusCode !== 400 || !resend.body.includes('Enter a date and time (UTC)'))
        wrong.push(`resend since ${since}: ${resend.statusCode}`);
    }
    expect(wrong).toEqual([]);
    expect(logged).not.toMatch(/"level":(50|60)/);
  });

  it('still answers real days', async () => {
    expect(
      (await get('/api/v1/compensation?origin=OTP&destination=LTN&airline=W6&outcome=cancelled&flightDate=2024-02-29'))
        .statusCode,
    ).toBe(200);
    expect((await get(`/api/v1/webhooks/${hook}/deliveries?from=2024-02-29&to=2026-12-31`)).statusCode).toBe(200);
    expect(
      (
        await get(`/api/admin/v1/accounts/${accountId}/usage?from=2026-02-01&to=2026-02-28`, {
          authorization: `Bearer ${ADMIN_TOKEN}`,
        })
      ).statusCode,
    ).toBe(200);
    expect(
      json(await send('POST', `/api/v1/webhooks/${hook}/deliveries/resend`, { since: '2026-02-28T23:59:59+01:00' }))
        .success,
    ).toBe(true);
  });
});
