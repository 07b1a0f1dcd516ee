// The dashboard's Watches pages through HTTP (inject) on both databases: watches created from a pasted
// CSV (the way without scripts) and from the script's text upload, for the endpoints ticked, each
// paid for with one credit exactly as the API charges; every bad input named beside it and nothing
// written; the list with its filters; one watch's page; Stop with the form's token; another account's
// watch is the 404 page; a billing person is refused by the server, not only shown no link.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { groundTruth } from '../src/sim/index.js';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';
import { PASSWORD, text, Visitor } from './helpers/dashboard.js';

const DATE = '2026-02-20';
/** Credits of an account made by sign-up here: enough for the tests, few enough to run out of. */
const INCLUDED = 40;

describeEachDatabase('the dashboard’s watches', (kind) => {
  let t: TestApp;
  let ana: Visitor;
  let anaKey: string;
  let anaAccount: string;
  let hookA: string;
  let hookB: string;
  let bob: Visitor;
  let bobHook: string;

  const cookie = (v: Visitor) => [...v.cookies].map(([n, value]) => `${n}=${value}`).join('; ');
  /** A form as a browser sends it, names repeated for ticked boxes. */
  const postForm = (v: Visitor, url: string, fields: [string, string][], token = v.csrf) =>
    t.app.http.inject({
      method: 'POST',
      url,
      headers: { cookie: cookie(v), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams([['_csrf', token], ...fields]).toString(),
    });
  const create = (v: Visitor, csv: string, endpoints: string[], skip = false) =>
    postForm(v, '/dashboard/watches', [
      ['csv', csv],
      ...endpoints.map((id): [string, string] => ['endpoints', id]),
      ...(skip ? [['skipInvalid', '1'] as [string, string]] : []),
    ]);
  /** The script's way in: the CSV as text, the endpoints in the query, the token in a header. */
  const upload = (v: Visitor, csv: string, endpoints: string[]) =>
    t.app.http.inject({
      method: 'POST',
      url: `/dashboard/watches/upload?endpoints=${encodeURIComponent(endpoints.join(','))}`,
      headers: { cookie: cookie(v), 'content-type': 'text/csv', 'x-csrf-token': v.csrf },
      payload: csv,
    });
  const used = async (key = anaKey) => Number((await t.get('/api/v1/account', bearer(key))).headers['x-credits-used']);
  const endpoint = async (key: string, name: string) =>
    json(
      await t.app.http.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: bearer(key),
        payload: { name, url: 'http://127.0.0.1:9/hook', airports: ['OTP'] },
      }),
    ).data.id as string;
  const accountOf = async (email: string) =>
    (
      await t.app.db.kysely
        .selectFrom('users')
        .select('account_id')
        .where('email', '=', email)
        .executeTakeFirstOrThrow()
    ).account_id;
  /** What a refusal must leave as it was: the account's watches and their usage rows, from the tables. */
  const written = async (account = anaAccount) => {
    const usage = await t.app.db.kysely
      .selectFrom('usage_log')
      .select(['key_id'])
      .where('account_id', '=', account)
      .where('endpoint', '=', 'POST /api/v1/watches')
      .execute();
    const watches = await t.app.db.kysely
      .selectFrom('flight_watches')
      .select(['id', 'state'])
      .where('account_id', '=', account)
      .execute();
    return { usage: usage.length, watches: watches.length, active: watches.filter((w) => w.state === 'active').length };
  };
  const apiWatches = async (query = '') => json(await t.get(`/api/v1/watches${query}`, bearer(anaKey))).data.watches;
  /** The page's text with the escapes a reader never sees decoded. */
  const readable = (response: Parameters<typeof text>[0]) =>
    text(response)
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');

  beforeAll(async () => {
    t = await startTestApp(kind, {
      signupPlan: { included: INCLUDED, overage: false },
      pollIntervalMs: 365 * 86_400_000,
    });
    ana = new Visitor(t);
    await ana.signUp('ana@example.com');
    anaKey = await ana.createKey('watches');
    anaAccount = await accountOf('ana@example.com');
    hookA = await endpoint(anaKey, 'claims intake');
    hookB = await endpoint(anaKey, 'policy desk');
    bob = new Visitor(t);
    await bob.signUp('bob@example.com', 'Bob Travel');
    bobHook = await endpoint(await bob.createKey('bob'), 'bob hook');
  });
  afterAll(() => t?.close());

  it('has a Watches page in the navigation that says what a watch costs and offers the account’s endpoints', async () => {
    const page = await ana.get('/dashboard/watches');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<a href="/dashboard/watches" aria-current="page">Watches</a>');
    expect(text(page)).toContain('1 credit per watch created');
    expect(text(page)).toContain('No watches yet');
    expect(page.body).toContain(`value="${hookA}"`);
    expect(page.body).toContain(`value="${hookB}"`);
    expect(page.body).not.toContain(bobHook);
  });

  it('creates watches from a pasted CSV for the endpoints ticked, one credit each as the API charges; the same again is free', async () => {
    const before = await used();
    const csv = `flightNumber,flightDate,reference\r\nW63101,${DATE},policy-1\r\nW63103,${DATE},policy-2\r\nW63105,${DATE},policy-3\r\n`;
    await ana.get('/dashboard/watches');
    const created = await create(ana, csv, [hookB, hookA]);
    expect(created.statusCode, created.body.slice(0, 500)).toBe(303);
    expect(created.headers.location).toBe('/dashboard/watches?created=3&existing=0&skipped=0');
    const page = await ana.get(created.headers.location as string);
    expect(text(page)).toContain('3 watches created (3 credits).');
    expect(await used()).toBe(before + 3);
    // The service's own usage rows, the signed-in user as their caller where the API records a key.
    const user = await t.app.db.kysely
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'ana@example.com')
      .executeTakeFirstOrThrow();
    const usage = await t.app.db.kysely
      .selectFrom('usage_log')
      .select(['key_id', 'status'])
      .where('account_id', '=', anaAccount)
      .where('endpoint', '=', 'POST /api/v1/watches')
      .execute();
    expect(usage).toEqual([1, 2, 3].map(() => ({ key_id: user.id, status: 201 })));
    // The API sees the same watches.
    const listed = await apiWatches();
    expect(listed.map((w: { reference: string }) => w.reference).sort()).toEqual(['policy-1', 'policy-2', 'policy-3']);
    expect(listed[0].endpoints).toEqual([hookA, hookB].sort());
    // The list: flight, date, reference, state, endpoints by name, created, a Stop button each.
    expect(page.body.match(/<tr><td class="nw"><a href="\/dashboard\/watches\/wch_/g)).toHaveLength(3);
    expect(text(page)).toMatch(
      /W63103 2026-02-20 policy-2 active claims intake, policy desk 2026-03-01 12:00 UTC Stop/,
    );
    expect(page.body.match(/action="\/dashboard\/watches\/wch_\w+\/stop"/g)).toHaveLength(3);

    const again = await create(ana, csv, [hookA, hookB]);
    expect(again.headers.location).toBe('/dashboard/watches?created=0&existing=3&skipped=0');
    expect(text(await ana.get(again.headers.location as string))).toContain(
      '0 watches created (0 credits); 3 already active, not charged again.',
    );
    expect(await used()).toBe(before + 3);
  });

  it('takes the script’s upload (text, the endpoints in the query, the token in a header) the same way', async () => {
    const before = await used();
    await ana.get('/dashboard/watches');
    const sent = await upload(ana, `flightNumber,flightDate,reference\nW63107,${DATE},policy-4\n`, [hookA]);
    expect(sent.statusCode, sent.body).toBe(201);
    expect(JSON.parse(sent.body)).toEqual({ location: '/dashboard/watches?created=1&existing=0&skipped=0' });
    expect(await used()).toBe(before + 1);
    // Without the token: refused before anything is read.
    const forged = await t.app.http.inject({
      method: 'POST',
      url: `/dashboard/watches/upload?endpoints=${hookA}`,
      headers: { cookie: cookie(ana), 'content-type': 'text/csv' },
      payload: `flightNumber,flightDate\nW63109,${DATE}\n`,
    });
    expect(forged.statusCode).toBe(403);
    expect(await used()).toBe(before + 1);
  });

  it('refuses a CSV with bad rows inline, naming each row as the API names it, writes nothing, and can create the valid ones', async () => {
    const csv = `flightNumber,flightDate,reference\r\nW63111,${DATE},policy-5\r\nW61,20/02/2026,bad-date\r\n,${DATE},no-number\r\n`;
    const api = await t.app.http.inject({
      method: 'POST',
      url: `/api/v1/watches?endpoints=${hookA}`,
      headers: { ...bearer(anaKey), 'content-type': 'text/csv' },
      payload: csv,
    });
    expect(api.statusCode).toBe(400);
    const named = [...json(api).message.matchAll(/row (\d+): ([^;]+)/g)].map((m) => ({
      row: m[1],
      error: m[2].trim(),
    }));
    expect(named.map((n) => n.row)).toEqual(['2', '3']);
    const before = await written();
    await ana.get('/dashboard/watches');
    const refused = await create(ana, csv, [hookA]);
    expect(refused.statusCode).toBe(400);
    const shown = readable(refused);
    expect(shown).toContain('No watch was created and no credit was taken. 2 of 3 rows are invalid.');
    for (const n of named) expect(shown).toContain(`${n.row} ${n.error}`);
    expect(refused.body).toContain('role="alert" id="upload-error"');
    // The CSV and the ticked endpoint come back for correction.
    expect(refused.body).toContain('W61,20/02/2026,bad-date');
    expect(refused.body).toMatch(new RegExp(`value="${hookA}" id="ep-${hookA}" checked`));
    expect(await written()).toEqual(before);

    expect(text(refused)).toContain('Create the 1 valid watch, skip 2');
    const skipped = await create(ana, csv, [hookA], true);
    expect(skipped.headers.location).toBe('/dashboard/watches?created=1&existing=0&skipped=2');
    expect(text(await ana.get(skipped.headers.location as string))).toContain(
      '1 watch created (1 credit); 2 invalid rows skipped at no cost.',
    );
    expect((await written()).watches).toBe(before.watches + 1);
  });

  it('names each problem beside its input: no endpoint ticked, no CSV, another account’s endpoint; nothing is written', async () => {
    const before = await written();
    await ana.get('/dashboard/watches');
    const none = await create(ana, `flightNumber,flightDate\nW63113,${DATE}\n,${DATE}\n`, []);
    expect(none.statusCode).toBe(400);
    expect(none.body).toMatch(/<p class="error" id="endpoints-error">Choose at least one webhook endpoint/);
    expect(none.body).toContain('aria-describedby="endpoints-hint endpoints-error" aria-invalid="true"');
    // The rows' own problems are named as well, and no "create the valid ones" is offered without an endpoint.
    expect(readable(none)).toMatch(/1 of 2 rows are invalid\..*2 flightNumber/);
    expect(text(none)).not.toContain('Create the 1 valid watch');

    const empty = await create(ana, '  ', []);
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('id="endpoints-error"');
    expect(empty.body).toMatch(/<p class="error" id="f-csv-error">Choose a CSV file or paste the CSV/);
    expect(empty.body).toContain('aria-describedby="f-csv-hint f-csv-error" aria-invalid="true"');

    const foreign = await create(ana, `flightNumber,flightDate\nW63113,${DATE}\n`, [hookA, bobHook]);
    expect(foreign.statusCode).toBe(400);
    expect(readable(foreign)).toContain(`Endpoint "${bobHook}" is not a webhook endpoint of this account`);
    expect(foreign.body).toContain('id="endpoints-error"');

    const unread = await create(ana, `flightNumber,flightDate,endpoints\nW63113,${DATE},${hookA}\n`, [hookA]);
    expect(unread.statusCode).toBe(400);
    expect(unread.body).toMatch(/id="f-csv-error">The CSV has an endpoints column/);
    expect(await written()).toEqual(before);
  });

  it('refuses what the credits left cannot pay for whole, creating nothing, and counts the refusal', async () => {
    const left = INCLUDED - (await used());
    const rows = Array.from({ length: left + 1 }, (_, i) => `W6${4000 + i},${DATE},many-${i}`);
    const before = await written();
    await ana.get('/dashboard/watches');
    const refused = await create(ana, ['flightNumber,flightDate,reference', ...rows].join('\n'), [hookA]);
    expect(refused.statusCode).toBe(429);
    expect(text(refused)).toContain(
      `Not enough credits: this creates ${left + 1} watches, one credit each, and the allowance of ${INCLUDED} for this window has ${left} left with overage off.`,
    );
    expect(await written()).toEqual(before);
    expect(await used()).toBe(INCLUDED - left);
    // Refused before any credit, as a lookup's 429 is: the overview's chart counts it.
    expect(text(await ana.get('/dashboard'))).toMatch(/, 1 refused/);
  });

  it('lists by state and reference, stops a watch with the form’s token, and says when it was already stopped', async () => {
    const [policy2] = await apiWatches('?reference=policy-2');
    await ana.get('/dashboard/watches');
    // Without the page's token, nothing changes.
    const forged = await postForm(ana, `/dashboard/watches/${policy2.id}/stop`, [], 'forged');
    expect(forged.statusCode).toBe(403);
    expect((await apiWatches('?reference=policy-2'))[0].state).toBe('active');

    const stopped = await postForm(ana, `/dashboard/watches/${policy2.id}/stop`, []);
    expect(stopped.statusCode).toBe(303);
    expect(stopped.headers.location).toBe(`/dashboard/watches/${policy2.id}?done=stopped`);
    const page = await ana.get(stopped.headers.location as string);
    expect(text(page)).toContain('Watch stopped');
    expect(page.body).toMatch(/id="watch-state"><span class="badge ">stopped/);
    expect(page.body).not.toContain('Stop watch');
    expect((await apiWatches('?reference=policy-2'))[0].state).toBe('stopped');
    const again = await postForm(ana, `/dashboard/watches/${policy2.id}/stop`, []);
    expect(again.statusCode).toBe(409);
    expect(text(again)).toContain('This watch is already stopped: there is nothing to stop.');

    const onlyStopped = await ana.get('/dashboard/watches?state=stopped');
    expect(onlyStopped.body.match(/<tr><td class="nw">/g)).toHaveLength(1);
    expect(text(onlyStopped)).toContain('policy-2');
    const active = await ana.get('/dashboard/watches?state=active');
    expect(active.body.match(/<tr><td class="nw">/g)).toHaveLength((await apiWatches('?state=active')).length);
    expect(text(active)).not.toContain('policy-2');
    const byReference = await ana.get('/dashboard/watches?reference=policy-3');
    expect(byReference.body.match(/<tr><td class="nw">/g)).toHaveLength(1);
    expect(text(await ana.get('/dashboard/watches?reference=nobody'))).toContain('No watches match.');
    const bad = await ana.get('/dashboard/watches?state=gone');
    expect(bad.statusCode).toBe(400);
    expect(text(bad)).toContain('There is no state “gone”');
    expect((await ana.get('/dashboard/watches?after=nope')).statusCode).toBe(400);
  });

  it('shows one watch: its fields and endpoints, nothing known yet of its flight, and no events yet', async () => {
    const [watch] = await apiWatches('?reference=policy-1');
    const page = await ana.get(`/dashboard/watches/${watch.id}`);
    expect(page.statusCode).toBe(200);
    expect(text(page)).toContain(`Watch of W63101 on ${DATE}`);
    expect(text(page)).toContain(watch.id);
    expect(page.body).toContain(`<a href="/dashboard/webhooks/${hookA}">claims intake</a>`);
    expect(page.body).toContain(`<a href="/dashboard/webhooks/${hookB}">policy desk</a>`);
    expect(text(page)).toContain('Nothing known yet');
    expect(text(page)).toContain(
      'No events yet. The flight’s events are listed here as the service observes them, on the boards it polls or by asking the flight providers',
    );
    expect(page.body).toContain('Stop watch');
  });

  it('shows the flight as the service holds it once a lookup settled it', async () => {
    const delayed = groundTruth(t.app.sim!, DATE, { status: 'delayed', operation: 'passenger' })[0]!;
    const query = `flightNumber=${delayed.flightNumber}&flightDate=${DATE}&origin=${delayed.origin}`;
    expect((await t.get(`/api/v1/flights/status?${query}`, bearer(anaKey))).statusCode).toBe(200);
    await ana.get('/dashboard/watches');
    const created = await create(
      ana,
      `flightNumber,flightDate,origin\n${delayed.flightNumber},${DATE},${delayed.origin}\n`,
      [hookA],
    );
    expect(created.statusCode).toBe(303);
    const [watch] = (await apiWatches()).filter(
      (w: { flightNumber: string }) => w.flightNumber === delayed.flightNumber,
    );
    const page = await ana.get(`/dashboard/watches/${watch.id}`);
    expect(page.body).toContain('id="result-heading"');
    expect(text(page)).toMatch(/Verdict delayed/);
    expect(text(page)).not.toContain('Nothing known yet');
  });

  it('answers another account’s watch with the 404 page, on the page and on Stop', async () => {
    const [watch] = await apiWatches('?reference=policy-1');
    const seen = await bob.get(`/dashboard/watches/${watch.id}`);
    expect(seen.statusCode).toBe(404);
    expect(text(seen)).toContain('Page not found');
    const stop = await postForm(bob, `/dashboard/watches/${watch.id}/stop`, []);
    expect(stop.statusCode).toBe(404);
    expect((await apiWatches('?reference=policy-1'))[0].state).toBe('active');
    expect((await bob.get('/dashboard/watches/wch_unknown1')).statusCode).toBe(404);
    expect(text(await bob.get('/dashboard/watches'))).toContain('No watches yet');
  });

  it('refuses the pages and their forms to a billing person on the server (403), not only hiding the link; a developer opens them', async () => {
    const people: Record<string, Visitor> = {};
    for (const role of ['billing', 'developer'] as const) {
      await ana.get('/dashboard/team');
      const invited = await ana.post('/dashboard/team/invite', { email: `${role}@example.com`, role });
      const link = /id="invite-link">https?:\/\/[^/]+(\/dashboard\/invite\/[\w-]{43})</.exec(invited.body)?.[1];
      expect(link, invited.body.slice(0, 300)).toBeDefined();
      const person = new Visitor(t);
      await person.get(link!);
      expect((await person.post(link!, { email: `${role}@example.com`, password: PASSWORD })).statusCode).toBe(303);
      await person.get('/dashboard');
      people[role] = person;
    }
    const billing = people.billing!;
    expect((await billing.get('/dashboard')).body).not.toContain('href="/dashboard/watches"');
    const [watch] = await apiWatches('?reference=policy-1');
    const before = await written();
    for (const path of ['/dashboard/watches', `/dashboard/watches/${watch.id}`, '/dashboard/watches?state=active']) {
      const page = await billing.get(path);
      expect(page.statusCode, path).toBe(403);
      expect(text(page)).toContain('you do not see watches');
    }
    expect((await create(billing, `flightNumber,flightDate\nW63115,${DATE}\n`, [hookA])).statusCode).toBe(403);
    expect((await upload(billing, `flightNumber,flightDate\nW63115,${DATE}\n`, [hookA])).statusCode).toBe(403);
    expect((await postForm(billing, `/dashboard/watches/${watch.id}/stop`, [])).statusCode).toBe(403);
    expect(await written()).toEqual(before);

    const developer = people.developer!;
    expect((await developer.get('/dashboard')).body).toContain('<a href="/dashboard/watches">Watches</a>');
    expect((await developer.get(`/dashboard/watches/${watch.id}`)).statusCode).toBe(200);
  });

  it('pages the list 50 at a time as the API does, and names the limit of active watches when it is reached, creating nothing', async () => {
    // Bob's account is made unlimited, so that 10,000 watches are paid for; the limit is on watches, not credits.
    const bobAccount = await accountOf('bob@example.com');
    expect((await t.admin('PATCH', `/api/admin/v1/accounts/${bobAccount}`, { unlimited: true })).statusCode).toBe(200);
    await bob.get('/dashboard/watches');
    const rows = Array.from({ length: 10_000 }, (_, i) => `W6${String(i).padStart(4, '0')},${DATE},full-${i}`);
    const filled = await upload(bob, ['flightNumber,flightDate,reference', ...rows].join('\n'), [bobHook]);
    expect(filled.statusCode, filled.body.slice(0, 300)).toBe(201);
    expect(JSON.parse(filled.body).location).toBe('/dashboard/watches?created=10000&existing=0&skipped=0');

    const first = await bob.get('/dashboard/watches');
    expect(text(first)).toContain('this account is not counted against an allowance');
    expect(first.body.match(/<tr><td class="nw">/g)).toHaveLength(50);
    const older = /href="(\/dashboard\/watches\?after=wch_\w+)">Older watches/.exec(first.body)?.[1];
    expect(older).toBeDefined();
    const second = await bob.get(older!);
    expect(second.statusCode).toBe(200);
    expect(second.body.match(/<tr><td class="nw">/g)).toHaveLength(50);
    expect(second.body).toContain('<a href="/dashboard/watches">Newest</a>');
    const ids = (page: typeof first) =>
      [...page.body.matchAll(/href="\/dashboard\/watches\/(wch_\w+)"/g)].map((m) => m[1]);
    const api = json(await t.get('/api/v1/watches?limit=100', bearer(await bob.createKey('pages')))).data.watches;
    expect([...ids(first), ...ids(second)]).toEqual(api.map((w: { id: string }) => w.id));

    const before = await written(bobAccount);
    await bob.get('/dashboard/watches');
    const over = await create(bob, `flightNumber,flightDate,reference\nW63101,${DATE},one-more\n`, [bobHook]);
    expect(over.statusCode).toBe(409);
    expect(text(over)).toContain(
      'An account may have at most 10,000 active watches; this one has 10,000 and the request would add 1.',
    );
    expect(over.body).toContain('role="alert" id="upload-error"');
    expect(await written(bobAccount)).toEqual(before);
  }, 120_000);
});
