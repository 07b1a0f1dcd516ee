// `flightstatus sim …`: the simulated world's ground truth and calibration, computed in this process
// from FLIGHTSTATUS_SIM_SEED (the world is deterministic, so it matches the running service's).
// "today" and "yesterday" are the running service's (its manual clock may be days ahead); see
// commandClock in running-service.ts.
import { dayProblem, FLIGHT_YEARS, readDay } from '../clock.js';
import type { Config } from '../config.js';
import type { Calibration, TruthFlight } from '../sim/index.js';
import { integer, parse, takeUrl, UsageError } from './args.js';
import type { Command } from './commands.js';
import { print } from './output.js';

const help = {
  sim: `Usage: flightstatus sim <flights|calibrate> ...

  sim flights --date DATE [--airport IATA] [--status STATUS] [--operation OPERATION] [--table] [--url URL]
  sim calibrate [--from DATE] [--days N] [--url URL]

Computed in this process from FLIGHTSTATUS_SIM_SEED; no database needed. Dates relative to now
(today, yesterday, the default --from) are on the running service's clock when it answers (at --url,
else HOST:PORT), else on the configured one.`,
  'sim flights': `Usage: flightstatus sim flights --date DATE [--airport IATA] [--status STATUS] [--operation OPERATION] [--table] [--url URL]

The simulated world's flights of DATE (YYYY-MM-DD, or today or yesterday on the running service's
clock, else the configured one) with their true outcome. --status delayed|cancelled|diverted|on_time, --operation
passenger|cargo|military|private; JSON on stdout, or a text table with --table.`,
  'sim calibrate': `Usage: flightstatus sim calibrate [--from DATE] [--days N] [--url URL]

The simulated delay statistics over N days (default 28) from DATE (default 28 days ago) beside the
published figures, as the table in docs/simulation.md.`,
};

async function simCommand(config: Config, argv: string[]): Promise<number> {
  // The world and its query, imported when a sim command runs (help and other commands stay light).
  const [
    { commandClock },
    { addDays, utcDate },
    { loadCatalogue },
    { calibrate, createSimWorld, groundTruth },
    { parseTruthQuery },
  ] = await Promise.all([
    import('./running-service.js'),
    import('../providers/zones.js'),
    import('../airports/index.js'),
    import('../sim/index.js'),
    import('../admin/sim-routes.js'),
  ]);
  const { url, rest: args } = takeUrl(argv);
  const [verb, ...rest] = args;
  if (!config.providers.includes('sim'))
    throw new UsageError('the simulated world is not a configured provider (FLIGHTSTATUS_PROVIDERS)');
  // The service is asked only when a date is relative to now.
  const today = async () =>
    utcDate((await commandClock(config, url, (line) => process.stderr.write(`flightstatus: ${line}\n`))).clock.now());
  const dateOf = async (text: string | undefined) =>
    text === 'today' ? await today() : text === 'yesterday' ? addDays(await today(), -1) : text;
  const world = createSimWorld(config.sim.seed);
  if (verb === 'flights') {
    const { values } = parse(rest, {
      date: { type: 'string' },
      airport: { type: 'string' },
      status: { type: 'string' },
      operation: { type: 'string' },
      table: { type: 'boolean' },
    });
    const { airport, status, operation } = values;
    const parsed = parseTruthQuery({ date: await dateOf(values.date), airport, status, operation }, loadCatalogue());
    if (!parsed.ok) throw new UsageError(parsed.message.replace(/query\.(\w+)/, '--$1'));
    const query = parsed.query;
    const flights = groundTruth(world, query.date, query.filter);
    if (values.table) {
      process.stdout.write(flightTable(flights));
      return 0;
    }
    return print({ kind: 'ok', value: { date: query.date, total: flights.length, flights } });
  }
  if (verb === 'calibrate') {
    const { values } = parse(rest, { from: { type: 'string' }, days: { type: 'string' } });
    const from = (await dateOf(values.from)) ?? addDays(await today(), -28);
    // Date.parse took 2026-02-30 (as 2 March): the days the status endpoint takes, nothing else.
    const day = readDay(from, FLIGHT_YEARS);
    if (!day.ok) throw new UsageError(dayProblem('--from', from, day.problem, FLIGHT_YEARS));
    const days = values.days === undefined ? 28 : integer(values.days, '--days');
    if (days < 1 || days > 366) throw new UsageError('--days must be from 1 to 366');
    process.stdout.write(calibrationTable(calibrate(world, from, days), config.sim.seed));
    return 0;
  }
  throw new UsageError(`Unknown sim command "${verb ?? ''}"`);
}

const hhmm = (value: string | null) => (value === null ? '  -  ' : value.slice(11, 16));

function flightTable(flights: TruthFlight[]): string {
  const lines = [
    'flight    airline                  from to  sched dep  actual dep  sched arr  actual arr  arr delay  status     aircraft  reg',
  ];
  for (const f of flights) {
    lines.push(
      [
        f.flightNumber.padEnd(9),
        f.airline.name.slice(0, 24).padEnd(24),
        f.origin,
        f.destination,
        hhmm(f.scheduledDeparture).padEnd(10),
        hhmm(f.actualDeparture).padEnd(11),
        hhmm(f.scheduledArrival).padEnd(10),
        hhmm(f.actualArrival).padEnd(11),
        (f.arrivalDelayMinutes === null ? '-' : `${f.arrivalDelayMinutes} min`).padStart(9),
        ` ${(f.divertedTo ? `diverted ${f.divertedTo}` : f.status).padEnd(10)}`,
        f.aircraftType.padEnd(9),
        f.registration,
      ].join(' '),
    );
  }
  lines.push(`${flights.length} flights; times UTC`);
  return `${lines.join('\n')}\n`;
}

const pct = (share: number) => `${(share * 100).toFixed(1)} %`;

/** The calibration table of docs/simulation.md: simulated figures beside the published ones. */
export function calibrationTable(c: Calibration, seed: string): string {
  const rows: [string, string, string][] = [
    [
      'Arrivals 15 min or more late',
      pct(c.arrivalDelayedOver15Share),
      '27–35 % (EUROCONTROL 2023: "nearly 3 in 10"; CODA 2022: 35.5 %)',
    ],
    [
      'Departures 15 min or more late',
      pct(c.departureDelayedOver15Share),
      '≈ 34 % (CODA 2024 departure punctuality 66.2 %)',
    ],
    ['Mean arrival delay per flight', `${c.meanArrivalDelayMinutes.toFixed(1)} min`, '16.2 min (EUROCONTROL 2023)'],
    [
      'Mean departure delay per flight',
      `${c.meanDepartureDelayMinutes.toFixed(1)} min`,
      '17.3–17.8 min (CODA 2022, EUROCONTROL 2023)',
    ],
    ['Reactionary share of departure delay', pct(c.reactionaryShare), '45–48 % (CODA 2016–2024)'],
    ['Cancelled', pct(c.cancelledShare), '1.5–2.0 % (CODA 2017–2019)'],
    ['Diverted', pct(c.divertedShare), '0.1–0.2 % (commonly cited; US DOT 2017: 0.22 %)'],
    ['Arriving early (before schedule)', pct(c.earlyArrivalShare), '40–50 % (commonly cited; schedules are padded)'],
    ['Arrivals 3 h or more late', pct(c.over180Share), '0.5–1 % (AirHelp: ~0.5 % of flights owe compensation)'],
  ];
  const out = [
    `Simulated world, seed "${seed}": ${c.passengerFlights} passenger flights over ${c.days} days from ${c.from}`,
    '',
    '| Measure | Simulated | Published |',
    '|---|---|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
    'Arrival delay of operated passenger flights:',
    '',
    '| Arrival delay | Share | |',
    '|---|---|---|',
    ...c.bands.map((b) => `| ${b.band} | ${pct(b.share)} | ${'█'.repeat(Math.round(b.share * 100))} |`),
    '',
  ];
  return `${out.join('\n')}\n`;
}

export const sim: Command = { help, json: false, run: simCommand };
