// Batches end to end (issue 29): a real service on each database, the simulated world, the manual
// clock, through HTTP. Every row's answer is checked against a single lookup of the same row.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { ASSESSMENTS } from '../src/circumstances/index.js';
import type { SimWorld, TruthFlight } from '../src/sim/index.js';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { expectSameAsSingle, flightsByStatus, waitForBatch } from './helpers/batches.js';

const DATE = '2026-02-20';

describeEachDatabase('batches', (kind) => {
  let t: TestApp;
  let key: string;
  let world: SimWorld;
  let byStatus: Map<TruthFlight['status'], TruthFlight[]>;

  const submit = (body: unknown, o: { csv?: boolean; query?: string; as?: string } = {}) =>
    t.app.http.inject({
      method: 'POST',
      url: `/api/v1/batches${o.query ?? ''}`,
      headers: { ...bearer(o.as ?? key), 'content-type': o.csv ? 'text/csv' : 'application/json' },
      payload: o.csv ? (body as string) : JSON.stringify(body),
    });
  const used = async (k = key) => Number((await t.get('/api/v1/account', bearer(k))).headers['x-credits-used']);

  beforeAll(async () => {
    t = await startTestApp(kind, { batches: { perBatch: 4 } });
    ({ key } = await t.account({ plan: { included: 10_000, overage: false } }));
    world = t.app.sim!;
    byStatus = flightsByStatus(world, DATE);
  });
  afterAll(() => t.close());

  it('resolves a JSON batch: each row answers what a single lookup of it answers, duplicates resolved once, one credit per row', async () => {
    const delayed = byStatus.get('delayed')!.slice(0, 3);
    const cancelled = byStatus.get('cancelled')!.slice(0, 2);
    const onTime = byStatus.get('on_time')!.slice(0, 2);
    const rows = [...delayed, ...cancelled, ...onTime].map((f, i) => ({
      flightNumber: f.flightNumber,
      flightDate: DATE,
      reference: `claim-${i + 1}`,
    }));
    rows.push({ ...rows[0]!, reference: 'claim-dup' }); // the same flight again
    rows.push({ flightNumber: 'ZZ9999', flightDate: DATE, reference: 'nobody' });
    const before = await used();

    const response = await submit(rows);
    expect(response.statusCode).toBe(202);
    const created = json(response).data;
    expect(response.headers.location).toBe(`/api/v1/batches/${created.id}`);
    expect(created).toMatchObject({ rows: rows.length, lookups: rows.length - 1, format: 'json' });
    // No origin given: every lookup asks for its flight alone (one request each, before replays).
    expect(created.providerCalls.planned).toBe(rows.length - 1);
    expect(['queued', 'running', 'done']).toContain(created.state);

    const done = await waitForBatch(t, key, created.id);
    expect(done.state).toBe('done');
    expect(done.progress).toEqual({ finished: rows.length, total: rows.length, percent: 100 });
    expect(done.credits).toBe(rows.length);
    expect(done.counts.byState).toMatchObject({ done: rows.length, pending: 0, refused: 0, invalid: 0 });
    expect(done.counts.byOutcome).toMatchObject({ delayed: 4, cancelled: 2, on_time: 2, not_found: 1 });
    expect(done.finishedAt).not.toBeNull();
    expect(done.expiresAt).not.toBeNull();
    expect(await used()).toBe(before + rows.length);

    const results = json(await t.get(`/api/v1/batches/${created.id}/results`, bearer(key))).data;
    expect(results.hasMore).toBe(false);
    expect(results.results.map((r: any) => r.row)).toEqual(rows.map((_, i) => i + 1));
    expect(results.results.map((r: any) => r.reference)).toEqual(rows.map((r) => r.reference));
    // Each row against a single lookup of the same row, now.
    for (const row of results.results) {
      const single = json(
        await t.get(
          `/api/v1/flights/status?${new URLSearchParams({ flightNumber: row.flightNumber, flightDate: DATE })}`,
          bearer(key),
        ),
      ).data;
      expectSameAsSingle(row, single, row.flightNumber);
      expect(row.origin).toBe(single.originIata);
      expect(row.credits).toBe(1);
      expect(row.evidenceUrl).toBe(
        single.selected
          ? `/api/v1/flights/evidence?${new URLSearchParams({ flightNumber: row.flightNumber, flightDate: DATE })}`
          : null,
      );
      // The carrier as the record names it; a row not found says why.
      expect([row.carrierIata, row.carrierName]).toEqual([
        single.selected?.airline?.iata ?? null,
        single.selected?.airline?.name ?? null,
      ]);
      if (single.selected) expect(row.notFoundReason).toBeNull();
      else expect(row.notFoundReason).toMatch(/^No provider holds this flight on this date \(sim: miss\)\.$/);
    }
    // The CSV as a spreadsheet opens it: UTF-8 with its byte order mark, evidence links it can follow.
    const csv = (await t.get(`/api/v1/batches/${created.id}/results`, { ...bearer(key), accept: 'text/csv' })).body;
    expect(csv.startsWith('\uFEFFrow,reference,')).toBe(true);
    const [head, ...lines] = csv.slice(1).trimEnd().split('\r\n');
    const column = (line: string, name: string) => line.split(',')[head!.split(',').indexOf(name)];
    const found = lines.filter((line) => column(line, 'outcome') !== 'not_found');
    expect(found.length).toBe(rows.length - 1);
    for (const line of found) {
      expect(column(line, 'evidenceUrl')).toMatch(
        /^http:\/\/localhost(:\d+)?\/api\/v1\/flights\/evidence\?flightNumber=/,
      );
      expect(column(line, 'carrierIata')).toMatch(/^[A-Z0-9]{2}$/);
    }
    expect(
      column(
        lines.find((line) => column(line, 'outcome') === 'not_found')!,
        'notFoundReason',
      ),
    ).toBe('No provider holds this flight on this date (sim: miss).');
  });

  it("links a disrupted row to its flight's evidence PDF", async () => {
    const f = byStatus.get('cancelled')![5]!;
    const id = json(await submit([{ flightNumber: f.flightNumber, flightDate: DATE, origin: f.origin }])).data.id;
    await waitForBatch(t, key, id);
    const [row] = json(await t.get(`/api/v1/batches/${id}/results`, bearer(key))).data.results;
    expect(row.evidenceUrl).toBe(
      `/api/v1/flights/evidence?${new URLSearchParams({ flightNumber: f.flightNumber, flightDate: DATE, origin: f.origin })}`,
    );
    const pdf = await t.get(row.evidenceUrl, bearer(key));
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toMatch(/^application\/pdf/);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it("carries each row's circumstances assessment and whether the amount owed is at risk, in JSON and CSV, and keeps the owed rows not at risk with only=owed_not_at_risk", async () => {
    const disrupted = [...byStatus.get('delayed')!.slice(10, 40), ...byStatus.get('cancelled')!.slice(10, 25)];
    const onTime = byStatus.get('on_time')![60]!;
    const rows = [...disrupted, onTime].map((f, i) => ({
      flightNumber: f.flightNumber,
      flightDate: DATE,
      reference: `risk-${i + 1}`,
    }));
    const id = json(await submit(rows)).data.id;
    await waitForBatch(t, key, id);
    const results = json(await t.get(`/api/v1/batches/${id}/results?limit=1000`, bearer(key))).data.results;
    expect(results).toHaveLength(rows.length);
    // Each row says what a single lookup of it says: data.circumstances.assessment and data.compensation.amountAtRisk.
    for (const row of results) {
      const single = json(
        await t.get(
          `/api/v1/flights/status?${new URLSearchParams({ flightNumber: row.flightNumber, flightDate: DATE })}`,
          bearer(key),
        ),
      ).data;
      expectSameAsSingle(row, single, row.flightNumber);
    }
    const last = results[results.length - 1];
    expect(last).toMatchObject({ outcome: 'on_time', compensationOwed: false, assessment: null, amountAtRisk: null });
    const owed = results.filter((r: any) => r.compensationOwed === true);
    for (const r of owed) {
      expect(ASSESSMENTS, r.flightNumber).toContain(r.assessment);
      // At risk on a likely or possibly extraordinary assessment, not on not_indicated, not known where the circumstances could not be checked.
      expect(r.amountAtRisk, r.flightNumber).toBe(
        r.assessment === 'unknown'
          ? null
          : r.assessment === 'likely_extraordinary' || r.assessment === 'possibly_extraordinary',
      );
    }
    const notAtRisk = owed.filter((r: any) => r.amountAtRisk === false).map((r: any) => r.row);
    // The filter has owed rows to leave out: at risk, or not known (assessment unknown: no boards were
    // watched in this service, so none is not_indicated unless its weather shows something).
    expect(notAtRisk.length).toBeLessThan(owed.length);
    expect(owed.some((r: any) => r.amountAtRisk === null && r.assessment === 'unknown')).toBe(true);
    // A disrupted row not owed carries its assessment, and no amount to be at risk.
    for (const r of results.filter((r: any) => r.compensationOwed === false && r.assessment !== null))
      expect(r.amountAtRisk).toBeNull();

    const kept = json(await t.get(`/api/v1/batches/${id}/results?only=owed_not_at_risk&limit=1000`, bearer(key))).data;
    expect(kept.results.map((r: any) => r.row)).toEqual(notAtRisk);

    // The CSV: the two columns right after compensationOwed, the same values.
    const csv = await t.get(`/api/v1/batches/${id}/results?format=csv`, bearer(key));
    expect(csv.statusCode).toBe(200);
    const [header, ...lines] = parse(csv.body) as string[][];
    const at = header!.indexOf('compensationOwed');
    expect(header!.slice(at, at + 4)).toEqual(['compensationOwed', 'assessment', 'amountAtRisk', 'eu261AmountEur']);
    expect(lines).toHaveLength(results.length);
    lines.forEach((cells, i) => {
      const r = results[i];
      expect(cells.slice(at, at + 3), r.flightNumber).toEqual([
        String(r.compensationOwed),
        r.assessment ?? '',
        r.amountAtRisk === null ? '' : String(r.amountAtRisk),
      ]);
      // A cancelled flight never arrived: its delay is empty, never 0.
      expect(cells[header!.indexOf('delayMinutes')], r.flightNumber).toBe(
        r.outcome === 'cancelled' ? '' : String(r.delayMinutes),
      );
    });
    expect(lines.filter((cells) => cells[header!.indexOf('outcome')] === 'cancelled').length).toBe(15);
    const keptCsv = parse(
      (await t.get(`/api/v1/batches/${id}/results?format=csv&only=owed_not_at_risk`, bearer(key))).body,
    ) as string[][];
    expect(keptCsv.slice(1).map((cells) => Number(cells[0]))).toEqual(notAtRisk);
    expect(keptCsv.slice(1).every((cells) => cells[at] === 'true' && cells[at + 2] === 'false')).toBe(true);

    const bad = await t.get(`/api/v1/batches/${id}/results?only=at_risk`, bearer(key));
    expect(bad.statusCode).toBe(400);
    expect(json(bad).message).toMatch(/only/);
    expect(json(bad).message).toMatch(/owed_not_at_risk/);
  });

  it('reads a CSV as people export it, refuses a batch with bad rows naming them, and runs the good ones with skipInvalid=1', async () => {
    const [a, b] = byStatus.get('delayed')!.slice(5, 7);
    const csv =
      '\uFEFFFlight Number,Date,Reference,Notes\r\n' +
      `${a!.flightNumber},${DATE},"Smith, J.","line one\r\nline two"\r\n` +
      `${b!.flightNumber},20/02/2026,R-2,\r\n` +
      `,${DATE},R-3,\r\n`;
    const refused = await submit(csv, { csv: true });
    expect(refused.statusCode).toBe(400);
    const message = json(refused).message as string;
    expect(message).toMatch(/2 of 3 rows are invalid/);
    expect(message).toMatch(/row 2: .*flightDate/);
    expect(message).toMatch(/row 3: .*flightNumber/);
    expect(message).toMatch(/skipInvalid=1/);
    const before = await used();

    const accepted = await submit(csv, { csv: true, query: '?skipInvalid=1' });
    expect(accepted.statusCode).toBe(202);
    const id = json(accepted).data.id;
    expect(json(accepted).data.ignoredColumns).toEqual(['Notes']);
    const done = await waitForBatch(t, key, id);
    expect(done.counts.byState).toMatchObject({ done: 1, invalid: 2 });
    expect(done.credits).toBe(1);
    expect(await used()).toBe(before + 1);

    const download = await t.get(`/api/v1/batches/${id}/results`, { ...bearer(key), accept: 'text/csv' });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toMatch(/^text\/csv/);
    const lines = download.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      '\uFEFFrow,reference,flightNumber,flightDate,origin,destination,state,outcome,delayMinutes,verdict,compensationOwed,assessment,amountAtRisk,eu261AmountEur,uk261AmountGbp,circumstances,credits,error,evidenceUrl,dateBasis,scheduledDeparture,scheduledDepartureLocal,actualDeparture,actualDepartureLocal,scheduledArrival,scheduledArrivalLocal,actualArrival,actualArrivalLocal,departureTimezone,arrivalTimezone,carrierIata,carrierName,notFoundReason',
    );
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(new RegExp(`^1,"Smith, J.",${a!.flightNumber},${DATE},`));
    expect(lines[2]).toMatch(/^2,R-2,,,,,invalid,/);
  });

  it("reads a CSV in the encoding it was saved in: Excel's Windows-1252, UTF-16, a declared charset; refuses one it cannot read", async () => {
    const f = byStatus.get('on_time')![40]!;
    const csv = `flightNumber,flightDate,reference\r\n${f.flightNumber},${DATE},Müller-Ærø-€5\r\n`;
    const post = (payload: Buffer, type = 'text/csv') =>
      t.app.http.inject({
        method: 'POST',
        url: '/api/v1/batches',
        headers: { ...bearer(key), 'content-type': type },
        payload,
      });
    const references = async (response: Awaited<ReturnType<typeof post>>) => {
      expect(response.statusCode, response.body).toBe(202);
      const done = await waitForBatch(t, key, json(response).data.id);
      return json(await t.get(`/api/v1/batches/${done.id}/results`, bearer(key))).data.results.map(
        (r: { reference: string }) => r.reference,
      );
    };
    const cp1252 = Buffer.from(csv.replace('€', '\x80'), 'latin1'); // what Excel's "CSV (Comma delimited)" writes
    expect(cp1252.toString('utf8')).toContain('\uFFFD'); // not UTF-8
    expect(await references(await post(cp1252))).toEqual(['Müller-Ærø-€5']);
    expect(
      await references(await post(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(csv, 'utf16le')]))),
    ).toEqual(['Müller-Ærø-€5']);
    expect(
      await references(await post(Buffer.from(csv.replace('€5', '5'), 'latin1'), 'text/csv; charset=ISO-8859-1')),
    ).toEqual(['Müller-Ærø-5']);
    expect(await references(await post(Buffer.from(csv), 'text/csv; charset=utf-8'))).toEqual(['Müller-Ærø-€5']);

    const unknown = await post(Buffer.from(csv), 'text/csv; charset=klingon');
    expect(unknown.statusCode).toBe(415);
    expect(json(unknown)).toMatchObject({
      code: 'unsupported_media_type',
      message: expect.stringContaining('"klingon"'),
    });
    const wrong = await post(cp1252, 'text/csv; charset=utf-8');
    expect(wrong.statusCode).toBe(400);
    expect(json(wrong).message).toMatch(/not valid utf-8/);
  });

  it('stops at the allowance: the rows past it are refused and take nothing', async () => {
    const small = await t.account({ plan: { included: 3, overage: false } });
    const rows = byStatus
      .get('on_time')!
      .slice(10, 16)
      .map((f) => ({ flightNumber: f.flightNumber, flightDate: DATE }));
    const response = await submit(rows, { as: small.key });
    expect(response.statusCode).toBe(202);
    const done = await waitForBatch(t, small.key, json(response).data.id);
    expect(done.state).toBe('done');
    expect(done.credits).toBe(3);
    expect(done.counts.byState).toMatchObject({ done: 3, refused: 3 });
    expect(done.stoppedReason).toMatch(/allowance/);
    expect(await used(small.key)).toBe(3);
    const results = json(await t.get(`/api/v1/batches/${done.id}/results`, bearer(small.key))).data.results;
    expect(
      results.filter((r: any) => r.state === 'refused').every((r: any) => r.credits === 0 && /429/.test(r.error)),
    ).toBe(true);
  });

  it("hides another account's batch (404) and lists only the account's own", async () => {
    const other = await t.account();
    t.clock.advance(1000); // newest first: a later instant than the batches before
    const mine = json(await submit([{ flightNumber: byStatus.get('on_time')![20]!.flightNumber, flightDate: DATE }]))
      .data.id;
    expect((await t.get(`/api/v1/batches/${mine}`, bearer(other.key))).statusCode).toBe(404);
    expect((await t.get(`/api/v1/batches/${mine}/results`, bearer(other.key))).statusCode).toBe(404);
    expect(
      (await t.app.http.inject({ method: 'DELETE', url: `/api/v1/batches/${mine}`, headers: bearer(other.key) }))
        .statusCode,
    ).toBe(404);
    const listed = json(await t.get('/api/v1/batches', bearer(other.key))).data;
    expect(listed.batches).toEqual([]);
    const own = json(await t.get('/api/v1/batches?limit=1', bearer(key))).data;
    expect(own.batches[0].id).toBe(mine);
    expect(own.hasMore).toBe(true);
  });

  it('makes one batch of a submit retried with its Idempotency-Key, JSON or CSV', async () => {
    const send = (payload: string, type: string, idempotency: string) =>
      t.app.http.inject({
        method: 'POST',
        url: '/api/v1/batches',
        headers: { ...bearer(key), 'content-type': type, 'idempotency-key': idempotency },
        payload,
      });
    const csv = `flightNumber,flightDate\r\n${byStatus.get('on_time')![25]!.flightNumber},${DATE}\r\n`;
    const first = await send(csv, 'text/csv', `csv-${kind}`);
    const again = await send(csv, 'text/csv', `csv-${kind}`);
    expect(first.statusCode).toBe(202);
    expect(again.statusCode).toBe(202);
    expect(json(again).data.id).toBe(json(first).data.id);
    const other = await send(csv.replace(DATE, '2026-02-21'), 'text/csv', `csv-${kind}`);
    expect(other.statusCode).toBe(409);
    await waitForBatch(t, key, json(first).data.id);
  });

  it('refuses what is not a batch with a clear error', async () => {
    expect(json(await submit({ flightNumber: 'W63101' })).message).toMatch(/JSON array/);
    expect(json(await submit([])).message).toMatch(/no rows/);
    const tooMany = Array.from({ length: 10_001 }, () => ({ flightNumber: 'W63101', flightDate: DATE }));
    const big = await submit(tooMany);
    expect(big.statusCode).toBe(400);
    expect(json(big).message).toMatch(/10,000/);
    const unknown = await t.get('/api/v1/batches/bat_nope', bearer(key));
    expect(unknown.statusCode).toBe(404);
    expect(
      (
        await t.app.http.inject({
          method: 'POST',
          url: '/api/v1/batches',
          payload: '[]',
          headers: { 'content-type': 'application/json' },
        })
      ).statusCode,
    ).toBe(401);
  });

  it('sends batch.completed, signed, to the endpoints that ask for it', async () => {
    const receiver: Receiver = await startReceiver();
    try {
      const asks = await t.app.http.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: bearer(key),
        payload: { name: 'batches', url: receiver.url, airports: ['OTP'], events: ['batch.completed'] },
      });
      expect(asks.statusCode).toBe(201);
      expect(json(asks).data.events).toEqual(['batch.completed']);
      const id = json(await submit([{ flightNumber: byStatus.get('on_time')![30]!.flightNumber, flightDate: DATE }]))
        .data.id;
      await waitForBatch(t, key, id);
      // The event goes out with the next delivery cycle.
      for (let i = 0; i < 50 && receiver.received.length === 0; i++) {
        await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 120 });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const got = receiver.received.find((r) => r.body.type === 'batch.completed');
      expect(got).toBeDefined();
      // Read back, the endpoint still asks for it.
      expect(json(await t.get(`/api/v1/webhooks/${json(asks).data.id}`, bearer(key))).data.events).toEqual([
        'batch.completed',
      ]);
      expect(got!.body.data.batch).toMatchObject({ id, state: 'done', rows: 1 });
      expect(got!.headers['x-flight-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(got!.body.airport).toBeNull();
    } finally {
      await receiver.close();
    }
  });

  it('cancels what has not run', async () => {
    const rows = byStatus
      .get('on_time')!
      .slice(40, 140)
      .map((f) => ({ flightNumber: f.flightNumber, flightDate: DATE }));
    const id = json(await submit(rows)).data.id;
    const canceled = await t.app.http.inject({ method: 'DELETE', url: `/api/v1/batches/${id}`, headers: bearer(key) });
    expect(canceled.statusCode).toBe(200);
    const view = await waitForBatch(t, key, id, (b) => b.counts.byState.pending === 0);
    expect(view.state).toBe('canceled');
    expect(view.counts.byState.canceled + view.counts.byState.done).toBe(rows.length);
    expect(view.counts.byState.canceled).toBeGreaterThan(0);
    expect(view.credits).toBe(view.counts.byState.done);
    const again = await t.app.http.inject({ method: 'DELETE', url: `/api/v1/batches/${id}`, headers: bearer(key) });
    expect(again.statusCode).toBe(409);
  });
});
