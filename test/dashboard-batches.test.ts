// The dashboard's Batches page through HTTP (inject) on both databases: a CSV pasted into the form
// (the way without scripts) and sent as text (the script's way), validation shown with the first bad
// rows and a way to run the valid ones, the list, a batch's page with its progress JSON, chart,
// results filters and pages, the CSV download, cancel, another account's batch, CSRF and the hostile.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import type { TruthFlight } from '../src/sim/index.js';
import { MAX_BATCH_BYTES } from '../src/batches/index.js';
import { describeEachDatabase } from './helpers/databases.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { text, Visitor } from './helpers/dashboard.js';
import { flightsByStatus } from './helpers/batches.js';

const DATE = '2026-02-20';
const HEADER =
  'row,reference,flightNumber,flightDate,origin,destination,state,outcome,delayMinutes,verdict,compensationOwed,assessment,amountAtRisk,eu261AmountEur,uk261AmountGbp,circumstances,credits,error,evidenceUrl,dateBasis,scheduledDeparture,scheduledDepartureLocal,actualDeparture,actualDepartureLocal,scheduledArrival,scheduledArrivalLocal,actualArrival,actualArrivalLocal,departureTimezone,arrivalTimezone,carrierIata,carrierName,notFoundReason';

describeEachDatabase('the dashboard’s batches', (kind) => {
  let t: TestApp;
  let ana: Visitor;
  let byStatus: Map<TruthFlight['status'], TruthFlight[]>;
  /** What the service logged at warn and above. */
  const logged: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logged.push(String(chunk));
      done();
    },
  });
  const cookie = (v: Visitor) => [...v.cookies].map(([n, value]) => `${n}=${value}`).join('; ');
  /** The script's way in: the CSV as text, the token in a header. */
  const upload = (v: Visitor, csv: string, o: { skip?: boolean; token?: string | null; type?: string } = {}) =>
    t.app.http.inject({
      method: 'POST',
      url: `/dashboard/batches/upload${o.skip ? '?skipInvalid=1' : ''}`,
      headers: {
        cookie: cookie(v),
        'content-type': o.type ?? 'text/csv',
        ...(o.token === null ? {} : { 'x-csrf-token': o.token ?? v.csrf }),
      },
      payload: csv,
    });
  const csvOf = (list: TruthFlight[], prefix = 'claim') =>
    ['flightNumber,flightDate,reference', ...list.map((f, i) => `${f.flightNumber},${DATE},${prefix}-${i + 1}`)].join(
      '\r\n',
    );
  const idOf = (location: string) => /\/dashboard\/batches\/(bat_\w+)/.exec(location)![1]!;
  async function finished(v: Visitor, id: string): Promise<any> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const response = await v.get(`/dashboard/batches/${id}/progress`);
      expect(response.statusCode).toBe(200);
      const progress = JSON.parse(response.body);
      if (progress.ended) return progress;
      if (Date.now() > deadline) throw new Error(`batch ${id} still ${progress.state}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  beforeAll(async () => {
    // Each flight lookup of the simulated world takes 20 ms, two at a time per batch: a batch of a
    // hundred rows runs for about a second, long enough to be cancelled.
    t = await startTestApp(kind, {
      batches: { perBatch: 2 },
      sim: { latency: { flight: { min: 20, max: 20 } } },
      logger: createLogger('warn', sink),
    });
    byStatus = flightsByStatus(t.app.sim!, DATE);
    ana = new Visitor(t);
    await ana.signUp('ana@example.com');
  });
  afterAll(() => t?.close());

  it('has a Batches page in the navigation that says what a batch costs', async () => {
    const page = await ana.get('/dashboard/batches');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<a href="/dashboard/batches" aria-current="page">Batches</a>');
    expect(text(page)).toContain('No batches yet');
    expect(text(page)).toMatch(/Each valid row takes one credit as it runs.*1,000 left in this window/);
    // The form works without scripts (a text area); the file input waits for the script.
    expect(page.body).toMatch(
      /<form method="post" action="\/dashboard\/batches"[^>]*data-upload="\/dashboard\/batches\/upload"/,
    );
    expect(page.body).toMatch(/<div class="dropzone" id="dropzone" hidden>/);
    expect(page.body).toContain('<textarea id="f-csv" name="csv"');
    // Its script is its own: the other pages do not load it.
    expect(page.body).toMatch(/<script defer src="\/dashboard\/assets\/batches\.js\?v=\w+"><\/script>/);
    const overview = await ana.get('/dashboard');
    expect(overview.body).toContain('<a href="/dashboard/batches">Batches</a>');
    expect(overview.body).not.toContain('batches.js');
    const script = await ana.get('/dashboard/assets/batches.js');
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
  });

  it('refuses a pasted CSV with invalid rows, naming the first ones, then runs the valid ones; the caller is the signed-in user', async () => {
    const [a] = byStatus.get('delayed')!.slice(0, 1);
    const csv = `Flight Number,Date,Reference\r\n${a!.flightNumber},${DATE},<b>mine</b>\r\nW61,20/02/2026,R-2\r\n,${DATE},R-3\r\n`;
    await ana.get('/dashboard/batches');
    const refused = await ana.post('/dashboard/batches', { csv });
    expect(refused.statusCode).toBe(400);
    const said = text(refused);
    expect(said).toContain('2 of 3 rows are invalid: nothing was queued.');
    expect(said).toMatch(/Row What is wrong 2 flightDate &quot;20\/02\/2026&quot; is a spreadsheet&#39;s date format/);
    expect(said).toMatch(/3 flightNumber/);
    expect(refused.body).toContain('role="alert"');
    expect(refused.body).toContain(
      '<button type="submit" name="skipInvalid" value="1">Run the 1 valid row, skip 2</button>',
    );
    // What was pasted is kept, escaped, for correction.
    expect(refused.body).toContain('&lt;b&gt;mine&lt;/b&gt;');
    expect(
      Number(
        (
          await t.app.db.kysely
            .selectFrom('batches')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    ).toBe(0);

    const run = await ana.post('/dashboard/batches', { csv, skipInvalid: '1' });
    expect(run.statusCode).toBe(303);
    expect(run.headers.location).toMatch(/^\/dashboard\/batches\/bat_\w+\?done=submitted$/);
    const id = idOf(run.headers.location!);
    const user = await t.app.db.kysely
      .selectFrom('users')
      .select(['id', 'account_id'])
      .where('email', '=', 'ana@example.com')
      .executeTakeFirstOrThrow();
    const stored = await t.app.db.kysely
      .selectFrom('batches')
      .select(['account_id', 'caller_id', 'caller_name', 'format'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({
      account_id: user.account_id,
      caller_id: user.id,
      caller_name: 'dashboard (ana@example.com)',
      format: 'csv',
    });

    const progress = await finished(ana, id);
    expect(progress).toMatchObject({
      state: 'done',
      percent: 100,
      total: 3,
      finished: 3,
      credits: '1',
      counts: { delayed: 1, invalid: 2 },
    });
    const page = await ana.get(run.headers.location!);
    // Followed after it ended, the page says so rather than "queued" (inside the section the script swaps in when it ends).
    expect(text(page)).toContain('Batch done: its results are below.');
    expect(text(page)).not.toContain('Batch queued.');
    expect(page.body).toMatch(/<section id="batch-live"[^>]*>\s*<div class="notice ok"[^>]*>Batch done/);
    expect(text(page)).toContain('State: Done');
    expect(page.body).toContain('<progress id="batch-progress" max="100" value="100"');
    expect(page.body).not.toContain('data-batch-poll');
    expect(text(page)).toContain('1 delayed, 2 invalid.');
    // The rows in input order; the reference shown as text.
    const rows = [...page.body.matchAll(/<tr><td class="nw">(\d+)<\/td><td class="ref">([^<]*)<\/td>/g)].map((m) => [
      m[1],
      m[2],
    ]);
    expect(rows).toEqual([
      ['1', '&lt;b&gt;mine&lt;/b&gt;'],
      ['2', 'R-2'],
      ['3', 'R-3'],
    ]);
  });

  it('takes a CSV sent as text by the page’s script: JSON answers, the refusal rendered as the form shows it', async () => {
    const list = byStatus.get('on_time')!.slice(0, 2);
    await ana.get('/dashboard/batches');
    const bad = await upload(ana, `${csvOf(list)}\r\nXX,2026-02-30,bad\r\n`);
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^application\/json/);
    const refusal = JSON.parse(bad.body);
    expect(refusal.message).toBe('1 of 3 rows are invalid: nothing was queued.');
    expect(refusal.problem).toContain('<td>3</td><td>');
    expect(refusal.problem).toContain('name="skipInvalid" value="1">Run the 2 valid rows, skip 1</button>');
    const unreadable = JSON.parse((await upload(ana, 'date,reference\r\n2026-02-20,x\r\n')).body);
    expect(unreadable.message).toMatch(/The CSV header must name flightNumber/);
    expect(unreadable.problem).not.toContain('skipInvalid');

    const accepted = await upload(ana, `${csvOf(list)}\r\nXX,2026-02-30,bad\r\n`, { skip: true });
    expect(accepted.statusCode).toBe(201);
    const { location } = JSON.parse(accepted.body);
    expect(accepted.headers.location).toBe(location);
    expect((await finished(ana, idOf(location))).counts).toMatchObject({ on_time: 2, invalid: 1 });
  });

  it('lists the batches, and shows one batch’s chart, results filtered and paged, and its CSV', async () => {
    const delayed = byStatus.get('delayed')!.slice(0, 40);
    const cancelled = byStatus.get('cancelled')!.slice(0, 5);
    const onTime = byStatus.get('on_time')!.slice(2, 17);
    const all = [...onTime, ...delayed, ...cancelled];
    await ana.get('/dashboard/batches');
    const run = await ana.post('/dashboard/batches', { csv: csvOf(all) });
    expect(run.statusCode).toBe(303);
    const id = idOf(run.headers.location!);
    const base = `/dashboard/batches/${id}`;
    // While it runs, the page asks its script to follow it.
    const running = await ana.get(base);
    if (!text(running).includes('State: Done')) {
      expect(running.body).toContain(`data-batch-poll="${base}/progress"`);
      expect(text(running)).toContain('Cancel batch');
    }
    const progress = await finished(ana, id);
    expect(progress.counts).toMatchObject({ on_time: 15, delayed: 40, cancelled: 5 });
    expect(progress.progressText).toBe('60 of 60 rows finished (100%)');

    const listed = await ana.get('/dashboard/batches');
    expect(listed.body).toContain(`<a href="${base}"><code>${id}</code></a>`);
    expect(listed.body.indexOf(id)).toBeLessThan(listed.body.indexOf('bat_', listed.body.indexOf(id) + id.length));

    const page = await ana.get(base);
    expect(page.statusCode).toBe(200);
    // The chart: one bar per outcome, drawn against the batch's rows, and its numbers in words.
    expect(page.body).toMatch(/<rect [^>]*width="(\d+\.\d)"[^>]*data-bar="delayed"/);
    const width = (key: string) =>
      Number(new RegExp(`<rect [^>]*width="([\\d.]+)"[^>]*data-bar="${key}"`).exec(page.body)![1]);
    expect(width('delayed') / width('on_time')).toBeCloseTo(40 / 15, 1);
    expect(width('refused')).toBe(0);
    expect(text(page)).toContain('15 on time, 40 delayed, 5 cancelled.');
    // 60 rows at 50 a page.
    const rowsOf = (body: string) => [...body.matchAll(/<tr><td class="nw">(\d+)<\/td>/g)].map((m) => Number(m[1]));
    expect(rowsOf(page.body)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(page.body).toContain(`<a href="${base}?after=50">Next rows</a>`);
    const next = await ana.get(`${base}?after=50`);
    expect(rowsOf(next.body)).toEqual(Array.from({ length: 10 }, (_, i) => i + 51));
    expect(next.body).not.toContain('Next rows');

    const disrupted = await ana.get(`${base}?only=disrupted`);
    expect(disrupted.body).toContain(`<a href="${base}?only=disrupted" aria-current="page">Disrupted only</a>`);
    const disruptedRows = rowsOf(disrupted.body);
    expect(disruptedRows[0]).toBe(16);
    expect(disruptedRows).toHaveLength(45);
    expect(text(disrupted)).not.toMatch(/ on time /);
    const owed = await ana.get(`${base}?only=owed`);
    const owedRows = rowsOf(owed.body);
    expect(owedRows.length).toBeGreaterThan(0);
    expect(owedRows.length).toBeLessThan(45);
    expect(owedRows.every((r) => r > 15)).toBe(true);
    for (const row of owed.body.matchAll(/<tr><td class="nw">\d+<\/td>.*?<\/tr>/g)) expect(row[0]).toMatch(/€\d/);
    // Each owed row says whether its amount is at risk, with the assessment beside it; "…and not at
    // risk" keeps exactly the owed rows whose amount is not.
    const tableRows = (body: string) =>
      [...body.matchAll(/<tr><td class="nw">(\d+)<\/td>.*?<\/tr>/g)].map((m) => ({ row: Number(m[1]), html: m[0] }));
    const owedTable = tableRows(owed.body);
    for (const r of owedTable) {
      expect(r.html).toMatch(
        /<td class="note"><span class="badge( warn| ok)?" data-risk="(yes|no|unknown)">(at risk|not at risk|not checked)<\/span> (likely extraordinary|possibly extraordinary|not indicated|unknown)<\/td>/,
      );
    }
    // An owed row whose circumstances could not be checked is neither at risk nor safe.
    for (const r of owedTable.filter((r) => r.html.includes('data-risk="unknown"')))
      expect(r.html).toMatch(/>not checked<\/span> unknown</);
    for (const r of owedTable.filter((r) => r.html.includes('data-risk="yes"')))
      expect(r.html).toMatch(/>at risk<\/span> (likely|possibly) extraordinary</);
    const notAtRisk = owedTable.filter((r) => r.html.includes('data-risk="no"')).map((r) => r.row);
    // Left out: owed rows at risk, or not checked. This service watched no boards: the airports' days
    // are read after the fact (docs/boards.md), so owed rows are found safe too, where both ends could be read.
    expect(notAtRisk.length).toBeGreaterThan(0);
    expect(notAtRisk.length).toBeLessThan(owedTable.length);
    const safe = await ana.get(`${base}?only=owed_not_at_risk`);
    expect(safe.body).toContain(`<a href="${base}?only=owed_not_at_risk" aria-current="page">…and not at risk</a>`);
    expect(rowsOf(safe.body)).toEqual(notAtRisk);
    // A row not owed has no amount to be at risk.
    expect(tableRows(page.body).find((r) => r.row === 1)!.html).not.toContain('data-risk');
    // Each found flight links to its evidence PDF, through the dashboard (its credit taken for the signed-in user).
    const link = /<a href="(\/dashboard\/evidence\?[^"]+)"/.exec(owed.body)![1]!.replaceAll('&amp;', '&');
    expect(link).toMatch(/[?&]_csrf=/);
    const pdf = await ana.get(link);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toMatch(/^application\/pdf/);

    const csv = await ana.get(`${base}/results.csv`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe(`attachment; filename="${id}-results.csv"`);
    expect(csv.body.startsWith('\uFEFF')).toBe(true); // UTF-8, as Excel reads it only with the mark
    const lines = csv.body.slice(1).trimEnd().split('\r\n');
    expect(lines[0]).toBe(HEADER);
    expect(lines).toHaveLength(61);
    expect(lines[1]).toMatch(new RegExp(`^1,claim-1,${onTime[0]!.flightNumber},${DATE},`));
    const owedCsv = await ana.get(`${base}/results.csv?only=owed`);
    expect(owedCsv.headers['content-disposition']).toBe(`attachment; filename="${id}-results-owed.csv"`);
    expect(owedCsv.body.trimEnd().split('\r\n')).toHaveLength(owedRows.length + 1);
    const safeCsv = await ana.get(`${base}/results.csv?only=owed_not_at_risk`);
    expect(safeCsv.headers['content-disposition']).toBe(`attachment; filename="${id}-results-owed_not_at_risk.csv"`);
    const [safeHeader, ...safeLines] = safeCsv.body.slice(1).trimEnd().split('\r\n');
    expect(safeHeader).toBe(HEADER);
    const column = (name: string) => HEADER.split(',').indexOf(name);
    expect(safeLines.map((l) => Number(l.split(',')[0]))).toEqual(notAtRisk);
    for (const line of safeLines)
      expect([line.split(',')[column('compensationOwed')], line.split(',')[column('amountAtRisk')]]).toEqual([
        'true',
        'false',
      ]);
  });

  it('cancels a running batch, and says so when there is nothing left to cancel', async () => {
    const rows = byStatus.get('on_time')!.slice(20, 120);
    await ana.get('/dashboard/batches');
    const run = await ana.post('/dashboard/batches', { csv: csvOf(rows) });
    const base = run.headers.location!.split('?')[0]!;
    await ana.get(base);
    const canceled = await ana.post(`${base}/cancel`);
    expect(canceled.statusCode).toBe(303);
    expect(canceled.headers.location).toBe(`${base}?done=canceled`);
    const progress = await finished(ana, idOf(base));
    expect(progress.state).toBe('canceled');
    expect(progress.counts.canceled).toBeGreaterThan(0);
    const page = await ana.get(`${base}?done=canceled`);
    expect(text(page)).toContain('Batch canceled: rows not yet run will not run and take no credit.');
    expect(text(page)).not.toContain('Cancel batch');
    const again = await ana.post(`${base}/cancel`);
    expect(again.statusCode).toBe(409);
    expect(text(again)).toContain('This batch is already canceled: there is nothing left to cancel.');
  });

  it('answers another account’s batch, and one that does not exist, with 404 everywhere', async () => {
    await ana.get('/dashboard/batches');
    const run = await ana.post('/dashboard/batches', { csv: csvOf(byStatus.get('on_time')!.slice(130, 131)) });
    const base = run.headers.location!.split('?')[0]!;
    await finished(ana, idOf(base));
    const bo = new Visitor(t);
    await bo.signUp('bo@example.com', 'Other Co');
    for (const url of [
      base,
      `${base}/progress`,
      `${base}/results.csv`,
      `${base}?only=owed`,
      '/dashboard/batches/bat_nothing',
      '/dashboard/batches/not-an-id/progress',
    ]) {
      const response = await bo.get(url);
      expect(response.statusCode, url).toBe(404);
      expect(text(response), url).toContain('Page not found');
    }
    await bo.get('/dashboard/batches');
    expect((await bo.post(`${base}/cancel`)).statusCode).toBe(404);
    const list = await bo.get('/dashboard/batches');
    expect(list.body).not.toContain(idOf(base));
    expect(text(list)).toContain('No batches yet');
    // Nor is it canceled.
    expect(JSON.parse((await ana.get(`${base}/progress`)).body).state).toBe('done');
    // The list's "after" must be a batch of the account.
    const foreign = await bo.get(`/dashboard/batches?after=${idOf(base)}`);
    expect(foreign.statusCode).toBe(400);
    expect(text(foreign)).toContain('That page of batches does not exist');
  });

  it('refuses a form or an upload without this browser’s CSRF token, queueing nothing', async () => {
    const count = async () =>
      Number(
        (
          await t.app.db.kysely
            .selectFrom('batches')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    await ana.get('/dashboard/batches');
    const csv = csvOf(byStatus.get('on_time')!.slice(0, 1));
    for (const token of ['', 'forged']) {
      const form = await ana.post('/dashboard/batches', { csv, _csrf: token });
      expect(form.statusCode).toBe(403);
      expect(text(form)).toContain('This form has expired');
    }
    expect((await upload(ana, csv, { token: null })).statusCode).toBe(403);
    expect((await upload(ana, csv, { token: 'forged' })).statusCode).toBe(403);
    // Another browser's token (signed in as someone else) is not this one's.
    const bo = new Visitor(t);
    await bo.signUp('csrf-bo@example.com', 'Other Co');
    await bo.get('/dashboard/batches');
    expect((await upload(ana, csv, { token: bo.csrf })).statusCode).toBe(403);
    // A stranger is sent to sign in.
    const stranger = await t.app.http.inject({
      method: 'POST',
      url: '/dashboard/batches/upload',
      headers: { 'content-type': 'text/csv' },
      payload: csv,
    });
    expect(stranger.statusCode).toBe(403);
    expect(await count()).toBe(before);
  });

  it('answers hostile input with an inline error, never a stack trace, and takes 10,000 rows', async () => {
    await ana.get('/dashboard/batches');
    logged.length = 0;
    const noStack = (body: string) => expect(body).not.toMatch(/\bat .*\.(ts|js):\d+|TypeError|FST_ERR/);

    // Past the limit: the form again, or JSON for the script, saying so.
    const huge = 'flightNumber,flightDate\r\n' + 'W63101,2026-02-20\r\n'.repeat(Math.ceil(MAX_BATCH_BYTES / 19) + 10);
    const tooLarge = await ana.post('/dashboard/batches', { csv: huge });
    expect(tooLarge.statusCode).toBe(413);
    expect(text(tooLarge)).toContain('The CSV is larger than 4 MB: split it into several batches.');
    expect(tooLarge.body).toContain('id="batch-form"');
    noStack(tooLarge.body);
    const tooLargeUpload = await upload(ana, huge);
    expect(tooLargeUpload.statusCode).toBe(413);
    expect(JSON.parse(tooLargeUpload.body).message).toContain('larger than 4 MB');

    // 10,000 rows of about 400 bytes (the limit's design): read whole and checked, by both ways.
    const padding = 'x'.repeat(385);
    const tenThousand =
      'flightNumber,flightDate,notes\r\n' +
      Array.from({ length: 10_000 }, (_, i) => `W6${i},2026-13-01,${padding}`).join('\r\n');
    expect(tenThousand.length).toBeGreaterThan(3.8 * 1024 * 1024);
    expect(tenThousand.length).toBeLessThan(MAX_BATCH_BYTES);
    for (const answer of [await ana.post('/dashboard/batches', { csv: tenThousand }), await upload(ana, tenThousand)]) {
      expect(answer.statusCode).toBe(400);
      expect(answer.body).toContain('10,000 of 10,000 rows are invalid: nothing was queued.');
      expect(answer.body).toContain('And 9,990 more.');
      expect(answer.body).not.toContain('skipInvalid');
    }
    const tooMany = 'flightNumber,flightDate\r\n' + 'W63101,2026-02-20\r\n'.repeat(10_001);
    expect(text(await ana.post('/dashboard/batches', { csv: tooMany }))).toContain(
      'The batch has 10,001 rows; at most 10,000 are accepted in one batch',
    );

    // Nothing, a form that is not one, the wrong format, a broken CSV.
    expect(text(await ana.post('/dashboard/batches', { csv: '  ' }))).toContain('Choose a CSV file or paste the CSV');
    const multipart = await t.app.http.inject({
      method: 'POST',
      url: '/dashboard/batches',
      headers: { cookie: cookie(ana), 'content-type': 'multipart/form-data; boundary=x' },
      payload: '--x--',
    });
    expect(multipart.statusCode).toBe(415);
    expect(multipart.body).toContain('id="batch-form"');
    const formToUpload = await upload(ana, `_csrf=${ana.csrf}&csv=x`, { type: 'application/x-www-form-urlencoded' });
    expect(formToUpload.statusCode).toBe(415);
    const broken = await ana.post('/dashboard/batches', { csv: 'flightNumber,flightDate\r\n"W63101,2026-02-20\r\n' });
    expect(broken.statusCode).toBe(400);
    expect(text(broken)).toContain('The CSV could not be read');
    noStack(broken.body);

    // A reference with control characters is a bad row (named, the CSV shown back with stand-ins);
    // markup in one is shown as text.
    const flight = byStatus.get('on_time')![140]!.flightNumber;
    const controls = await ana.post('/dashboard/batches', {
      csv: `flightNumber,flightDate,reference\r\n${flight},${DATE},"a\u0000b\u001b[31m"\r\n`,
    });
    expect(controls.statusCode).toBe(400);
    expect(text(controls)).toContain('reference must not contain control characters');
    // eslint-disable-next-line no-control-regex
    expect(controls.body).not.toMatch(/[\u0000\u001b]/);
    expect(controls.body).toContain('a\u2400b\u241b[31m');
    const run = await ana.post('/dashboard/batches', {
      csv: `flightNumber,flightDate,reference\r\n${flight},${DATE},"<script>alert(1)</script>"\r\n`,
    });
    expect(run.statusCode).toBe(303);
    const base = run.headers.location!.split('?')[0]!;
    await finished(ana, idOf(base));
    const page = await ana.get(base);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('<script>alert');
    expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');

    // Query parameters that are not ours: a page that says so, escaped.
    const filter = await ana.get(`${base}?only=%3Cscript%3E`);
    expect(filter.statusCode).toBe(400);
    expect(text(filter)).toContain('There is no such filter: all rows are shown.');
    expect(filter.body).not.toContain('<script>');
    for (const after of ['-1', 'abc', '99999999', '5']) {
      const paged = await ana.get(`${base}?after=${after}`);
      expect(paged.statusCode, after).toBe(400);
      expect(text(paged)).toContain('That page of results does not exist');
    }
    for (const url of [
      '/dashboard/batches/%00',
      `/dashboard/batches/bat_${'a'.repeat(90)}`,
      '/dashboard/batches/bat_%27%3B--/results.csv',
      '/dashboard/batches/..%2F..%2Fkeys/progress',
    ]) {
      const response = await ana.get(url);
      expect(response.statusCode, url).toBe(404);
      noStack(response.body);
    }
    // An id past the router's limit is refused before any page code runs.
    const long = await ana.get(`/dashboard/batches/bat_${'a'.repeat(500)}`);
    expect(long.statusCode).toBe(414);
    noStack(long.body);
    const list = await ana.get(`/dashboard/batches?after=${'%00'.repeat(5)}`);
    expect(list.statusCode).toBe(400);
    noStack(list.body);
    // None of it was a failure of the service: nothing logged as an error.
    const errors = logged
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.level >= 50);
    expect(errors.map((line) => line.msg)).toEqual([]);
  });
});
