// The dashboard's webhook pages through HTTP (inject) on both databases, with a real local receiver:
// add an endpoint, reveal and rotate its secret, send a test, read and resend deliveries, and never
// reach another account's endpoint or delivery.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createBoardStore } from '../src/boards/index.js';
import { FanOut } from '../src/webhooks/index.js';
import { verifyWebhook } from '../src/webhooks/verify.js';
import { describeEachDatabase } from './helpers/databases.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { text, Visitor } from './helpers/dashboard.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';

describeEachDatabase('the dashboard’s webhook pages', (kind) => {
  let t: TestApp;
  let receiver: Receiver;
  beforeEach(async () => {
    t = await startTestApp(kind);
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver?.close();
    await t?.close();
  });

  async function addEndpoint(v: Visitor, fields: Record<string, string>, airports: string[]) {
    await v.get('/dashboard/webhooks');
    const body = new URLSearchParams({ _csrf: v.csrf, ...fields });
    for (const a of airports) body.append('airports', a);
    const cookie = [...v.cookies].map(([n, val]) => `${n}=${val}`).join('; ');
    return t.app.http.inject({
      method: 'POST',
      url: '/dashboard/webhooks',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: body.toString(),
    });
  }

  it('adds an endpoint with airports from the catalogue, keeping the form and naming the field when something is wrong', async () => {
    const v = new Visitor(t);
    await v.signUp('ana@example.com');
    const empty = await addEndpoint(v, { name: '', url: '' }, []);
    expect(empty.statusCode).toBe(400);
    for (const id of ['f-name-error', 'f-url-error']) expect(empty.body).toContain(`id="${id}"`);
    // No airport is no error: such an endpoint receives only the flights the account watches.
    expect(empty.body).not.toContain('id="airports-error"');
    const badUrl = await addEndpoint(v, { name: 'intake', url: 'ftp://example.com/x' }, ['OTP', 'KIV']);
    expect(badUrl.statusCode).toBe(400);
    expect(badUrl.body).toContain('id="f-url-error"');
    expect(badUrl.body).toContain('value="intake"');
    expect(badUrl.body).toMatch(/value="OTP" id="ap-OTP" checked/);
    const unknown = await addEndpoint(v, { name: 'intake', url: receiver.url }, ['XXX']);
    expect(unknown.body).toMatch(/id="airports-error">airports: &quot;XXX&quot; is not a catalogue airport/);

    const created = await addEndpoint(v, { name: 'intake', url: receiver.url }, ['OTP', 'KIV']);
    expect(created.statusCode).toBe(303);
    const page = await v.get(created.headers.location as string);
    expect(text(page)).toContain('Endpoint added.');
    expect(text(page)).toMatch(/Airports OTP, RMO/); // KIV is an alias of RMO
    expect(text(page)).toContain('Account events none');
    const list = await v.get('/dashboard/webhooks');
    expect(text(list)).toMatch(/intake .* OTP, RMO enabled/);
    const watchesOnly = await addEndpoint(v, { name: 'policies', url: receiver.url }, []);
    expect(watchesOnly.statusCode).toBe(303);
    expect(text(await v.get(watchesOnly.headers.location as string))).toContain('Airports none (watches only)');

    // batch.completed is subscribed from the form as through the API; an unknown event is named on the form.
    const hostile = await addEndpoint(v, { name: 'batches', url: receiver.url, events: 'flight.everything' }, ['OTP']);
    expect(hostile.statusCode).toBe(400);
    expect(text(hostile)).toContain('events: &quot;flight.everything&quot; is not an account event (batch.completed)');
    expect(hostile.body).not.toMatch(/id="ev-batch-completed" checked/);
    const withBatches = await addEndpoint(v, { name: 'batches', url: receiver.url, events: 'batch.completed' }, [
      'OTP',
    ]);
    expect(withBatches.statusCode).toBe(303);
    expect(text(await v.get(withBatches.headers.location as string))).toContain('Account events batch.completed');
    const id = (withBatches.headers.location as string).split('?')[0]!.split('/').at(-1)!;
    const stored = await t.app.db.kysely
      .selectFrom('endpoints')
      .select('account_events')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(stored.account_events).toContain('batch.completed');
  });

  it('reveals the secret, rotates it only when confirmed, and sends a signed test whose result and delivery it shows', async () => {
    const v = new Visitor(t);
    await v.signUp('ana@example.com');
    const created = await addEndpoint(v, { name: 'intake', url: receiver.url }, ['OTP']);
    const path = created.headers.location!.split('?')[0] as string;
    await v.get(path);
    const revealed = await v.post(`${path}/reveal`);
    const secret = /id="endpoint-secret">([^<]+)</.exec(revealed.body)![1]!;
    expect(secret).toMatch(/^whsec_/);

    const unconfirmed = await v.post(`${path}/rotate`);
    expect(unconfirmed.statusCode).toBe(400);
    expect(unconfirmed.body).toContain('id="confirm-error"');
    // The form offers the overlap, a day unless chosen; the page says until when the old one signs.
    expect(unconfirmed.body).toMatch(/<option value="86400" selected>for 24 hours<\/option>/);
    const overlapped = await v.post(`${path}/rotate`, { confirm: 'yes' });
    const between = /id="endpoint-secret">([^<]+)</.exec(overlapped.body)![1]!;
    expect(text(overlapped)).toMatch(
      /This is the new secret; the old one also signs each attempt until \d{4}-\d\d-\d\d \d\d:\d\d UTC/,
    );
    expect(text(await v.get(path))).toMatch(/The secret before the last rotation also signs each attempt until/);
    const rotated = await v.post(`${path}/rotate`, { confirm: 'yes', overlap: '0' });
    const fresh = /id="endpoint-secret">([^<]+)</.exec(rotated.body)![1]!;
    expect(fresh).not.toBe(secret);
    expect(fresh).not.toBe(between);
    expect(text(rotated)).toContain('the old one stopped working now');
    expect(text(await v.get(path))).not.toMatch(/The secret before the last rotation/);
    expect((await v.post(`${path}/rotate`, { confirm: 'yes', overlap: '99' })).statusCode).toBe(400);

    const tested = await v.post(`${path}/test`);
    expect(tested.statusCode).toBe(200);
    expect(text(tested)).toMatch(/Test event delivered: your endpoint answered 204 in \d+ ms/);
    expect(receiver.received).toHaveLength(1);
    const sent = receiver.received[0]!;
    expect(() => verifyWebhook(sent.raw, String(sent.headers['x-flight-signature']), secret)).toThrow();
    expect(verifyWebhook(sent.raw, String(sent.headers['x-flight-signature']), fresh, { now: Date.now() }).type).toBe(
      'webhook.test',
    );
    expect(text(tested)).toMatch(/Delivery dlv_\w+ Event webhook\.test/);
    expect(text(tested)).toMatch(/webhook\.test — delivered 1 204/);
    // A test delivery is not resent.
    const deliveryId = /Delivery <code>(dlv_\w+)</.exec(tested.body)![1]!;
    const resend = await v.post(`${path}/deliveries/${deliveryId}/resend`);
    expect(resend.statusCode).toBe(409);
    expect(text(resend)).toContain('A test event is not resent');
  });

  it('shows board deliveries with their flight and attempts, and resends one that failed', async () => {
    // The first attempt fails, the rest succeed (many failures in a row would disable the endpoint).
    let answered = 0;
    receiver.answer = () => (answered++ === 0 ? 500 : 204);
    const v = new Visitor(t);
    await v.signUp('ana@example.com');
    const created = await addEndpoint(v, { name: 'intake', url: receiver.url }, ['OTP']);
    const path = created.headers.location!.split('?')[0] as string;
    await t.app.poller.pass(t.clock.now());
    await t.app.deliveries.cycle();
    const page = await v.get(path);
    // Newest first, each with its flight.
    expect(page.body).toMatch(
      /\?delivery=dlv_\w+#deliveries">flight\.[a-z_]+<\/a><\/td>\s*<td>[A-Z0-9]{2} \d{1,4}<\/td>/,
    );
    const failed = await t.app.db.kysely
      .selectFrom('deliveries')
      .select(['id', 'event_id'])
      .where('state', '=', 'pending')
      .where('attempts', '=', 1)
      .executeTakeFirstOrThrow();
    const deliveryId = failed.id;
    const flight = (await t.app.webhooks.flightsOf([failed.event_id])).get(failed.event_id)!;
    const detail = await v.get(`${path}?delivery=${deliveryId}`);
    expect(text(detail)).toContain(`flight ${flight}`);
    expect(text(detail)).toMatch(/State retrying Attempts 1 Next attempt \d{4}-/);
    expect(text(detail)).toMatch(/Attempt When Answer Took 1 \S+ \S+ UTC HTTP 500 · receiver answered 500 \d+ ms/);

    const resent = await v.post(`${path}/deliveries/${deliveryId}/resend`);
    expect(resent.headers.location).toBe(`${path}?done=resent&delivery=${deliveryId}`);
    const before = receiver.received.length;
    await t.app.deliveries.cycle();
    expect(receiver.received.length).toBeGreaterThan(before);
    expect(receiver.received.some((r) => r.body.id === deliveryId && r.headers['x-flight-attempt'] === '2')).toBe(true);
    const after = text(await v.get(`${path}?delivery=${deliveryId}`));
    expect(after).toMatch(/State delivered Attempts 2/);
    expect(after).toMatch(/1 \S+ \S+ UTC HTTP 500 · receiver answered 500 \d+ ms 2 \S+ \S+ UTC HTTP 204 \d+ ms/);
  });

  it('pages and filters the delivery log by state, event, flight and day, as the API does', async () => {
    const v = new Visitor(t);
    await v.signUp('ana@example.com');
    const key = await v.createKey('log');
    const created = await addEndpoint(v, { name: 'busy', url: receiver.url }, ['OTP', 'KIV', 'BCN', 'LIS']);
    const path = created.headers.location!.split('?')[0] as string;
    await v.get(path);
    await v.post(`${path}/test`);
    // One poll at busy airports: more deliveries than a page holds, the test delivery among the oldest.
    await t.app.poller.pass(t.clock.now());
    await t.app.deliveries.cycle();
    const all = await t.app.db.kysely
      .selectFrom('deliveries')
      .select(['id', 'event_id', 'event_type', 'state'])
      .orderBy('seq', 'desc')
      .execute();
    expect(all.length).toBeGreaterThan(50);
    const first = await v.get(path);
    const links = (body: string) => [...body.matchAll(/\?delivery=(dlv_\w+)#deliveries/g)].map((m) => m[1]);
    expect(links(first.body)).toEqual(all.slice(0, 50).map((d) => d.id));
    const older = /href="([^"]+before=dlv_\w+[^"]*)">Older deliveries/.exec(first.body)![1]!.replace(/&amp;/g, '&');
    const second = await v.get(older);
    expect(links(second.body)).toEqual(all.slice(50, 100).map((d) => d.id));
    expect(second.body).toContain('← Newest');
    // The test delivery, reached by its type however many deliveries came after it.
    const tests = await v.get(`${path}?type=webhook.test`);
    expect(links(tests.body)).toEqual(all.filter((d) => d.event_type === 'webhook.test').map((d) => d.id));
    expect(tests.body).toMatch(/<option value="webhook.test" selected>/);
    // One flight's deliveries, typed as a person would (lower case, with a space).
    const board = all.find((d) => d.event_type !== 'webhook.test')!;
    const flight = (await t.app.webhooks.flightsOf([board.event_id])).get(board.event_id)!;
    const ofFlight = all.filter((d) => d.event_type !== 'webhook.test').map((d) => d.id);
    const flights = await t.app.webhooks.flightsOf(all.map((d) => d.event_id));
    const expected = all
      .filter((d) => flights.get(d.event_id)?.replace(/ /g, '') === flight.replace(/ /g, ''))
      .map((d) => d.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(ofFlight.length);
    const byFlight = await v.get(`${path}?flight=${encodeURIComponent(flight.toLowerCase())}`);
    expect(links(byFlight.body)).toEqual(expected);
    const delivered = await v.get(`${path}?state=delivered&type=webhook.test`);
    expect(links(delivered.body)).toEqual(
      all.filter((d) => d.event_type === 'webhook.test' && d.state === 'delivered').map((d) => d.id),
    );
    const day = new Date(t.clock.now()).toISOString().slice(0, 10);
    expect(links((await v.get(`${path}?from=${day}&to=${day}`)).body)).toHaveLength(50);
    const tomorrow = new Date(t.clock.now() + 86_400_000).toISOString().slice(0, 10);
    expect(text(await v.get(`${path}?from=${tomorrow}`))).toContain('No deliveries match these filters.');
    const bad = await v.get(`${path}?flight=hello+world`);
    expect(bad.statusCode).toBe(400);
    expect(text(bad)).toContain('Flight must be a flight number like W63101 or W6 3101');
    // The API: the same filters and messages.
    const api = (query: string) =>
      t.app.http.inject({
        method: 'GET',
        url: `/api/v1/webhooks/${path.split('/').at(-1)}/deliveries${query}`,
        headers: { authorization: `Bearer ${key}` },
      });
    const viaApi = JSON.parse((await api(`?flight=${encodeURIComponent(flight)}&limit=200`)).body).data.deliveries.map(
      (d: { id: string }) => d.id,
    );
    expect(viaApi).toEqual(expected);
    expect(JSON.parse((await api('?type=webhook.test')).body).data.deliveries).toHaveLength(1);
    const refused = await api(`?from=${tomorrow}&to=${day}`);
    expect(refused.statusCode).toBe(400);
    expect(JSON.parse(refused.body).message).toBe('from must not be after to');
  });

  it('keeps what is observed while the endpoint is disabled and resends everything since a time', async () => {
    const v = new Visitor(t);
    await v.signUp('ana@example.com');
    const created = await addEndpoint(v, { name: 'intake', url: receiver.url }, ['OTP']);
    const path = created.headers.location!.split('?')[0] as string;
    await v.get(path);
    await v.post(`${path}/disable`);
    const since = new Date(t.clock.now()).toISOString().slice(0, 16); // as a datetime-local input sends it, UTC
    await t.app.poller.pass(t.clock.now());
    await createBoardStore(t.app.db, new FanOut(t.app.db)).fannedOut();
    const skipped = (
      await t.app.db.kysely.selectFrom('deliveries').select('id').where('state', '=', 'skipped').execute()
    ).length;
    expect(skipped).toBeGreaterThan(0);
    await t.app.deliveries.cycle();
    expect(receiver.received).toHaveLength(0);
    const disabledPage = await v.get(path);
    expect(text(disabledPage)).toMatch(/Resend everything since… .*Enable the endpoint first/);
    expect(disabledPage.body).toMatch(/<td>skipped<\/td>/);

    // Refused while disabled; then an empty and a malformed time, and nothing ticked, each named inline.
    expect((await v.post(`${path}/deliveries/resend`, { since, states: 'skipped' })).statusCode).toBe(400);
    await v.post(`${path}/enable`);
    for (const [fields, message] of [
      [{ since: '', states: 'skipped' }, 'Enter a date and time (UTC)'],
      [{ since: '2026-02-30T06:00', states: 'skipped' }, 'Enter a date and time (UTC)'],
      [{ since }, 'Tick what to resend'],
      [{ since, states: 'delivered' }, 'Tick what to resend'],
    ] as const) {
      await v.get(path);
      const refused = await v.post(`${path}/deliveries/resend`, fields);
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toContain(`id="f-since-error">${message}`);
      expect(refused.body).toContain('aria-invalid="true"');
    }
    await v.get(path);
    const resent = await v.post(`${path}/deliveries/resend`, { since, states: 'skipped' });
    expect(resent.statusCode).toBe(303);
    expect(text(await v.get(resent.headers.location as string))).toContain(`${skipped} deliveries queued again`);
    await t.app.deliveries.cycle();
    expect(receiver.received).toHaveLength(skipped);
  });

  it("answers 404 for another account's endpoint and delivery, and changes nothing", async () => {
    const bob = new Visitor(t);
    await bob.signUp('bob@example.com', 'Bob Co');
    const created = await addEndpoint(bob, { name: 'bob hook', url: receiver.url }, ['OTP']);
    const path = created.headers.location!.split('?')[0] as string;
    const tested = await bob.post(`${path}/test`);
    const deliveryId = /Delivery <code>(dlv_\w+)</.exec(tested.body)![1]!;

    const ana = new Visitor(t);
    await ana.signUp('ana@example.com', 'Ana Co');
    expect((await ana.get(path)).statusCode).toBe(404);
    expect((await ana.get(`/dashboard/webhooks?x=${path}`)).body).not.toContain('bob hook');
    await ana.get('/dashboard/webhooks');
    for (const action of ['reveal', 'test', 'disable', 'delete'])
      expect((await ana.post(`${path}/${action}`)).statusCode, action).toBe(404);
    expect((await ana.post(`${path}/rotate`, { confirm: 'yes' })).statusCode).toBe(404);
    expect((await ana.post(`${path}/deliveries/${deliveryId}/resend`)).statusCode).toBe(404);
    expect((await ana.get(`${path}?delivery=${deliveryId}`)).statusCode).toBe(404);
    expect(receiver.received).toHaveLength(1);
    expect(text(await bob.get(path))).toMatch(/State enabled/);
  });
});
