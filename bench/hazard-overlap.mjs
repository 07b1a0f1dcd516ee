#!/usr/bin/env node
// What the airport-wide evidence can and cannot tell apart (issue 43's measure "the airline's own
// assessed likely_ or possibly_extraordinary ≤ 3 %"), read from the simulated world's ground truth
// alone, no service: for every passenger flight of the attribution bench's days that was 3 hours or more
// late, cancelled or diverted, whether the airline's own cause (technical, crew, its staff's strike,
// or a knock-on whose chain started in one) met an outside hazard at either end at its times (a
// strike, an airport failure, ATC restrictions, weather beyond or within limits), and how late the
// flights inside ATC restrictions were by cause. A rule that sees only the airports (their boards,
// their weather) gives such a flight the hazard's cause unless something about the flight itself says
// otherwise; the delay is the only such thing the boards show.
//
//   node bench/hazard-overlap.mjs [--seeds flightstatus,9001] [--weeks 2026-01-12,2026-04-13,2026-08-17,2026-10-19] [--days 7]
//   (dist/ built: `npm run build`; about a minute)
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);
const DAY = 86_400_000;
const addDays = (date, n) => new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);
const OWN = new Set(['technical', 'crew', 'airline_strike']);

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: 'flightstatus,9001' },
    weeks: { type: 'string', default: '2026-01-12,2026-04-13,2026-08-17,2026-10-19' },
    days: { type: 'string', default: '7' },
  },
});
const { createSimWorld, groundTruth } = await dist('sim/index.js');
const { loadReferenceAirports } = await dist('airports/index.js');
const airports = loadReferenceAirports();

let own = 0;
const met = new Map();
const atcDelays = { atc: [], own: [] };
for (const seed of values.seeds.split(',')) {
  const world = createSimWorld(seed);
  for (const week of values.weeks.split(',')) {
    for (let i = 0; i < Number(values.days); i++) {
      const flights = groundTruth(world, addDays(week, i));
      const byLeg = new Map(flights.map((f) => [`${f.flightNumber}|${f.flightDate}|${f.origin}`, f]));
      for (const f of flights) {
        const late = f.status === 'delayed' && f.arrivalDelayMinutes >= 180;
        if (f.operation !== 'passenger' || !(late || f.status === 'cancelled' || f.status === 'diverted')) continue;
        // A knock-on is the cause where its chain started (as bench/attribution.mjs counts it); one that started on another day is left out.
        let kind = f.delayCause.kind;
        if (kind === 'knock_on') {
          const o = f.delayCause.originLeg;
          kind = byLeg.get(`${o?.flightNumber}|${o?.flightDate}|${o?.origin}`)?.delayCause.kind ?? null;
        }
        if (kind === null) continue;
        const hazards = [
          [f.origin, f.scheduledDeparture],
          [f.destination, f.scheduledArrival],
        ].flatMap(([iata, at]) => {
          const airport = airports.find(iata);
          const hazard = airport && world.hazards.at(airport, Date.parse(at));
          return hazard
            ? [
                `${hazard.kind === 'weather' ? `weather ${hazard.level === 'severe' ? 'beyond' : 'within'} limits` : hazard.kind}`,
              ]
            : [];
        });
        const inAtc = hazards.includes('atc');
        if (inAtc && late && (kind === 'atc' || OWN.has(kind)))
          atcDelays[kind === 'atc' ? 'atc' : 'own'].push(f.arrivalDelayMinutes);
        if (!OWN.has(kind)) continue;
        own++;
        if (hazards.length === 0) continue;
        const key = [...new Set(hazards)].sort().join(' + ');
        met.set(key, (met.get(key) ?? 0) + 1);
      }
    }
  }
}

const pct = (n, of) => `${((100 * n) / of).toFixed(1)} %`;
const total = [...met.values()].reduce((a, b) => a + b, 0);
const lines = [
  `Seeds ${values.seeds}; weeks ${values.weeks}; ${values.days} days each. The airline's own disrupted flights: ${own.toLocaleString('en')}; ` +
    `inside an outside hazard at either end at their times: ${total} (${pct(total, own)}).`,
  '',
  '| Hazard met | Own-cause flights | Share of all own |',
  '|---|---|---|',
  ...[...met.entries()].sort((a, b) => b[1] - a[1]).map(([k, n]) => `| ${k} | ${n} | ${pct(n, own)} |`),
  '',
  'Flights 3 hours or more late inside ATC restrictions, arrival delay in minutes:',
  '',
  '| Cause | Flights | p10 | p25 | median | p75 | p90 |',
  '|---|---|---|---|---|---|---|',
  ...Object.entries(atcDelays).map(([cause, delays]) => {
    const d = delays.sort((a, b) => a - b);
    const q = (p) => d[Math.floor(p * (d.length - 1))] ?? '—';
    return `| ${cause === 'own' ? "the airline's own" : 'ATC'} | ${d.length} | ${q(0.1)} | ${q(0.25)} | ${q(0.5)} | ${q(0.75)} | ${q(0.9)} |`;
  }),
];
process.stdout.write(`${lines.join('\n')}\n`);
