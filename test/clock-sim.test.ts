// The test clock and the simulated world's ground truth through the operator API, on a real
// service and database; and the same through the `flightstatus` command.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DAY, HOUR, iso, MINUTE, systemClock } from '../src/clock.js';
import { describeEachDatabase, describeWithoutDatabase } from './helpers/databases.js';
import { ADMIN_TOKEN, json, startTestApp, T0, type TestApp } from './helpers/app.js';
import { runCli, startService } from './helpers/process.js';

describeEachDatabase('the test clock', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(() => t.close());

  it('reads the clock and its jobs', async () => {
    const response = await t.admin('GET', '/api/admin/v1/clock');
    expect(response.statusCode).toBe(200);
    expect(json(response).data).toMatchObject({
      now: iso(t.clock.now()),
      mode: 'manual',
      jobs: [
        { name: 'board-poll', intervalSeconds: 1800 },
        { name: 'watch-follow', intervalSeconds: 300 },
        { name: 'watch-settle', intervalSeconds: 1800 },
        { name: 'webhook-deliver', intervalSeconds: 120 },
        { name: 'billing', intervalSeconds: 3600 },
        { name: 'prune', intervalSeconds: 3600 },
      ],
    });
  });

  it('moves forward, running every job that falls due in time order before answering', async () => {
    const seen: string[] = [];
    t.app.scheduler.register({
      name: 'probe',
      intervalMs: 30 * MINUTE,
      run: async (at) => void seen.push(`${iso(at)} ${iso(t.clock.now())}`),
    });
    const start = t.clock.now();
    const response = await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 2 * 3600 });
    expect(response.statusCode).toBe(200);
    const body = json(response).data;
    expect(body.previous).toBe(iso(start));
    expect(body.now).toBe(iso(start + 2 * HOUR));
    const probes = body.runs.filter((r: { job: string }) => r.job === 'probe');
    expect(probes).toHaveLength(4);
    expect(probes.map((r: { at: string }) => r.at)).toEqual(seen.map((s) => s.slice(0, 24)));
    // Jobs due at the same moment run in registration order: the board poll first, the watches' jobs,
    // then the deliveries of what they all saw.
    const firstPoll = body.runs.find((r: { job: string }) => r.job === 'board-poll');
    expect(body.runs.filter((r: { at: string }) => r.at === firstPoll.at).map((r: { job: string }) => r.job)).toEqual([
      'board-poll',
      'watch-follow',
      'watch-settle',
      'webhook-deliver',
      'probe',
    ]);
    for (const line of seen) expect(line.slice(0, 24)).toBe(line.slice(25)); // each run saw its own time

    const to = iso(t.clock.now() + 45 * MINUTE);
    const moved = await t.admin('POST', '/api/admin/v1/clock', { to });
    expect(json(moved).data.now).toBe(to);
    const jobs = json(await t.admin('GET', '/api/admin/v1/clock')).data.jobs;
    expect(jobs.find((j: { name: string }) => j.name === 'probe')).toMatchObject({
      intervalSeconds: 1800,
      running: false,
    });
  });

  it('never goes back, and names what is wrong with a bad request', async () => {
    const back = await t.admin('POST', '/api/admin/v1/clock', { to: iso(T0 - HOUR) });
    expect(back.statusCode).toBe(409);
    expect(json(back).message).toMatch(/never goes back/);
    for (const [body, pattern] of [
      [{}, /body/],
      [{ advanceSeconds: -5 }, /advanceSeconds/],
      [{ advanceSeconds: 60, to: iso(T0) }, /body/],
      [{ to: 'tomorrow' }, /body\.to must be an ISO 8601 time/],
      [{ to: '2026-03-05T12:00:00' }, /body\.to must be an ISO 8601 time with its zone/],
      [{ advanceSeconds: 'x' }, /advanceSeconds/],
    ] as const) {
      const response = await t.admin('POST', '/api/admin/v1/clock', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(json(response)).toMatchObject({ success: false, code: 'invalid_request' });
      expect(json(response).message).toMatch(pattern);
    }
    // A target is bounded as advanceSeconds is (366 days): the year 9999 would run every job slot on
    // the way while holding the clock. The clock does not move.
    const before = t.clock.now();
    for (const to of ['9999-12-31T00:00:00Z', iso(before + 366 * DAY + 1000)]) {
      const far = await t.admin('POST', '/api/admin/v1/clock', { to });
      expect(far.statusCode, to).toBe(400);
      expect(json(far)).toEqual({
        success: false,
        code: 'invalid_request',
        message: expect.stringMatching(/^body\.to must be at most 366 days after the service time/),
      });
    }
    expect(t.clock.now()).toBe(before);
    const anonymous = await t.app.http.inject({
      method: 'POST',
      url: '/api/admin/v1/clock',
      payload: { advanceSeconds: 1 },
    });
    expect(anonymous.statusCode).toBe(401);
  });
});

describeWithoutDatabase('the clock on the system clock', () => {
  it('refuses to move', async () => {
    const t = await startTestApp('sqlite', { clock: systemClock });
    try {
      expect(json(await t.admin('GET', '/api/admin/v1/clock')).data.mode).toBe('system');
      const response = await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 60 });
      expect(response.statusCode).toBe(409);
      expect(json(response).message).toMatch(/FLIGHTSTATUS_CLOCK=manual/);
    } finally {
      await t.close();
    }
  });
});

describeWithoutDatabase('ground truth of the simulated world', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(() => t.close());

  it('lists a day’s flights at an airport with their settled outcome, filtered', async () => {
    const all = json(await t.admin('GET', '/api/admin/v1/sim/flights?date=2026-02-27&airport=OTP&limit=5000')).data;
    expect(all.date).toBe('2026-02-27');
    expect(all.total).toBeGreaterThan(100);
    expect(
      all.flights.every((f: { origin: string; destination: string }) => f.origin === 'OTP' || f.destination === 'OTP'),
    ).toBe(true);
    const delayed = json(
      await t.admin('GET', '/api/admin/v1/sim/flights?date=2026-02-27&airport=otp&status=delayed'),
    ).data;
    expect(delayed.total).toBeGreaterThan(5);
    expect(delayed.total).toBeLessThan(all.total);
    for (const f of delayed.flights) {
      expect(f.status).toBe('delayed');
      expect(f.arrivalDelayMinutes).toBeGreaterThanOrEqual(15);
    }
    const page = json(
      await t.admin('GET', '/api/admin/v1/sim/flights?date=2026-02-27&airport=OTP&limit=3&offset=2'),
    ).data;
    expect(page.flights).toEqual(all.flights.slice(2, 5));
    const alias = json(await t.admin('GET', '/api/admin/v1/sim/flights?date=2026-02-27&airport=KIV&limit=1')).data;
    expect(alias.total).toBeGreaterThan(0);
    expect(
      json(await t.admin('GET', '/api/admin/v1/sim/flights?date=2026-02-27&operation=cargo')).data.total,
    ).toBeGreaterThan(0);
  });

  it('matches what the provider answers once the flight has settled', async () => {
    const truth = json(await t.admin('GET', '/api/admin/v1/sim/flights?date=2026-03-01&airport=OTP&status=delayed'))
      .data.flights[0];
    await t.admin('POST', '/api/admin/v1/clock', { to: '2026-03-04T00:00:00Z' });
    const answer = await t.app.providers[0]!.lookupFlight({
      designator: truth.flightNumber,
      flightDate: '2026-03-01',
      origin: truth.origin,
    });
    expect(answer.outcome).toBe('hit');
    const record = answer.outcome === 'hit' ? answer.value[0]! : null;
    expect(iso(record!.departure.actual!)).toBe(truth.actualDeparture);
    expect(iso(record!.arrival.actual!)).toBe(truth.actualArrival);
    expect(record!.aircraft!.registration).toBe(truth.registration);
  });

  it('names the bad field', async () => {
    for (const [query, pattern] of [
      ['', /query\.date/],
      ['date=2026-02-30', /query\.date/],
      ['date=2026-02-27&airport=JFK', /query\.airport must be a catalogue airport/],
      ['date=2026-02-27&status=late', /query\.status must be one of/],
      ['date=2026-02-27&operation=bus', /query\.operation must be one of/],
      ['date=2026-02-27&limit=0', /query\.limit/],
      ['date=2026-02-27&surprise=1', /surprise/],
    ] as const) {
      const response = await t.admin('GET', `/api/admin/v1/sim/flights?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(json(response).message).toMatch(pattern);
    }
    expect(
      (await t.app.http.inject({ method: 'GET', url: '/api/admin/v1/sim/flights?date=2026-02-27' })).statusCode,
    ).toBe(401);
  });
});

describeWithoutDatabase('the flightstatus command', () => {
  it('lists yesterday’s delayed flights at OTP, as the README shows', async () => {
    const env = { FLIGHTSTATUS_CLOCK: 'manual', FLIGHTSTATUS_CLOCK_START: '2026-03-02T09:00:00Z' };
    const result = await runCli(
      ['sim', 'flights', '--date', 'yesterday', '--airport', 'OTP', '--status', 'delayed'],
      env,
    );
    // No service answers: the configured clock's day, and a line that says so.
    expect(result.stderr).toMatch(
      /^flightstatus: no service answered at .*; "now" is where its manual clock would start: FLIGHTSTATUS_CLOCK_START\n$/,
    );
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body.data.date).toBe('2026-03-01');
    expect(body.data.total).toBeGreaterThan(5);
    expect(body.data.flights.every((f: { status: string }) => f.status === 'delayed')).toBe(true);

    const table = await runCli(
      ['sim', 'flights', '--date', '2026-03-01', '--airport', 'OTP', '--status', 'delayed', '--table'],
      {},
    );
    expect(table.stdout.split('\n')[0]).toMatch(/^flight\s+airline/);
    expect(table.stdout).toMatch(new RegExp(`${body.data.total} flights; times UTC`));

    // A whole day at a busy airport is hundreds of kilobytes: all of it reaches the pipe.
    const whole = await runCli(['sim', 'flights', '--date', '2026-03-01', '--airport', 'OTP'], {});
    expect(whole.stdout.length).toBeGreaterThan(65536);
    expect(JSON.parse(whole.stdout).data.flights.length).toBe(JSON.parse(whole.stdout).data.total);

    const bad = await runCli(['sim', 'flights', '--date', 'soon'], {});
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--date must be a date/);
    // The filter's own checks, worded for the command line.
    const late = await runCli(['sim', 'flights', '--date', '2026-03-01', '--status', 'late'], {});
    expect(late.code).toBe(2);
    expect(late.stderr).toMatch(/--status must be one of/);
  });

  it('names a day that does not exist, never rolling it over into the next month', async () => {
    // Date.parse took 2026-02-30 for `sim calibrate --from` (as 2 March).
    for (const [args, message] of [
      [
        ['sim', 'calibrate', '--days', '1', '--from', '2026-02-30'],
        /--from is not a calendar date \(got "2026-02-30"\)/,
      ],
      [['sim', 'calibrate', '--days', '1', '--from', '2026-13-01'], /--from is not a calendar date/],
      [['sim', 'calibrate', '--days', '1', '--from', '0000-01-01'], /--from must be between 1970 and 2099/],
      [['sim', 'flights', '--date', '2026-02-29'], /--date must be a date/],
    ] as const) {
      const refused = await runCli([...args], {});
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toMatch(message);
    }
  });

  it('moves a running service’s manual clock', async () => {
    const service = await startService({
      FLIGHTSTATUS_CLOCK: 'manual',
      FLIGHTSTATUS_CLOCK_START: '2026-03-01T06:00:00Z',
      FLIGHTSTATUS_ADMIN_TOKEN: ADMIN_TOKEN,
      DATABASE_URL: 'sqlite::memory:',
    });
    try {
      const env = { FLIGHTSTATUS_ADMIN_TOKEN: ADMIN_TOKEN };
      const url = ['--url', service.url];
      const advanced = await runCli(['clock', 'advance', '2h30m', ...url], env);
      expect(advanced.code).toBe(0);
      expect(JSON.parse(advanced.stdout).data.now).toBe('2026-03-01T08:30:00.000Z');
      // The runs it caused, counted per job (a month ahead is over 100,000 runs), not listed.
      const summary = JSON.parse(advanced.stdout).data.runs as {
        total: number;
        failed: number;
        jobs: { job: string; runs: number; first: string; last: string }[];
        failures: unknown[];
      };
      expect(summary.total).toBeGreaterThan(10);
      expect(summary.failed).toBe(0);
      expect(summary.failures).toEqual([]);
      expect(summary.jobs.reduce((sum, job) => sum + job.runs, 0)).toBe(summary.total);
      expect(summary.jobs.map((job) => job.job)).toContain('board-poll');
      expect(advanced.stdout.split('\n').length).toBeLessThan(80);
      // --verbose lists every run.
      const listed = await runCli(['clock', 'advance', '30m', '--verbose', ...url], env);
      expect(listed.code).toBe(0);
      const runs = JSON.parse(listed.stdout).data.runs as { job: string; at: string; ok: boolean }[];
      expect(runs.length).toBeGreaterThan(1);
      expect(runs.every((run) => run.ok && typeof run.at === 'string')).toBe(true);
      const shown = await runCli(['clock', ...url], env);
      expect(JSON.parse(shown.stdout).data).toMatchObject({ now: '2026-03-01T09:00:00.000Z', mode: 'manual' });
      const back = await runCli(['clock', 'set', '2026-03-01T07:00:00Z', ...url], env);
      expect(back.code).toBe(1);
      expect(JSON.parse(back.stdout).message).toMatch(/never goes back/);
      const far = await runCli(['clock', 'set', '9999-12-31T00:00:00Z', ...url], env);
      expect(far.code).toBe(1);
      expect(far.stderr).toMatch(/^flightstatus: body\.to must be at most 366 days after the service time/);
      expect(JSON.parse((await runCli(['clock', ...url], env)).stdout).data.now).toBe('2026-03-01T09:00:00.000Z');
      expect((await runCli(['clock', 'advance', 'soon', ...url], env)).code).toBe(2);

      // "today" and "yesterday" are the service's days once its clock has moved past the start's,
      // in the sim command too (its own configured clock would still say 2026-03-01, yesterday 02-28).
      // One day of its jobs moves past the start's day; each day more only costs the polls of 52 airports.
      expect((await runCli(['clock', 'advance', '1d', ...url], env)).code).toBe(0);
      const manual = { ...env, FLIGHTSTATUS_CLOCK: 'manual', FLIGHTSTATUS_CLOCK_START: '2026-03-01T06:00:00Z' };
      const today = await runCli(['sim', 'flights', '--date', 'today', '--airport', 'OTP', ...url], manual);
      expect(today.code, today.stderr).toBe(0);
      expect(JSON.parse(today.stdout).data.date).toBe('2026-03-02');
      const calibration = await runCli(['sim', 'calibrate', '--days', '1', '--from', 'yesterday', ...url], manual);
      expect(calibration.code, calibration.stderr).toBe(0);
      expect(calibration.stdout).toContain('2026-03-01');
      expect(calibration.stdout).not.toContain('2026-02-28');
    } finally {
      await service.stop();
    }
  }, 60_000); // a service, ten commands and two days of its jobs: about 30 s on a loaded 2-core machine
});
