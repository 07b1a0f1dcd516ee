#!/usr/bin/env node
// How good `flight.predicted_qualifying` is, against the simulated world's truth: the board poll as
// the poller runs it (dist/, run `npm run build` first), in-process on a fresh SQLite database and the
// manual clock, one endpoint watching the 52 catalogue airports, a pass every 30 minutes from 12 h
// before the first measured day (the boards' look-ahead) to 3 h after the last (their look-back).
// Every prediction stored is then compared with what really happened (groundTruth of src/sim/):
// precision, recall, lead before the scheduled departure, and recall by the truth's delay cause.
//
// Qualifying, as the service judges a departure (src/boards/engine.ts, qualifyingReason): a passenger
// departure 3 hours or more late (EU261_DELAY_MINUTES; the departures board's delay stands in for the
// arrival delay). A prediction only ever says "delayed", so the truth's positives are the operated
// passenger departures of the catalogue airports scheduled in the measured days whose actual departure
// was 180 minutes or more after schedule; a prediction of a departure later cancelled counts as wrong
// (its precision counting it right is given too). The same figures against the arrival delay (EU261's
// own measure) are given beside them. About 5 minutes on two cores; bench/smoke.mjs: a few seconds.
//
//   node bench/predictions.mjs        measure, print the section and write it into docs/performance.md
//   node bench/run.mjs predictions    the same, through the bench entry point
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeSection } from './sections.mjs';
import { size } from './smoke.mjs';
import { benchEndpoint, pollOnlyConfig, sqliteTarget } from './targets.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HEADING = '## Predictions';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The measured days; a smoke run (bench/smoke.mjs) polls three airports for six hours. */
const FIRST_DAY = '2026-11-20';
const DAYS = size(2, 0.25);
const AIRPORTS = size(Infinity, 3);
/** Passes start this long before the first day (a board looks 12 h ahead) and end this long after the last (it keeps 3 h). */
const LEAD_IN = size(12 * HOUR, 0);
const LEAD_OUT = size(3 * HOUR, 0);
const QUALIFYING_MINUTES = 180;
/** What the coming work is to reach. */
const TARGETS = { precision: 0.95, recall: 0.5, leadMinutes: 120 };
const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);

const isoDay = (ms) => new Date(ms).toISOString().slice(0, 10);
/** One departure, as the boards and the truth both name it: where, when scheduled, and its callsign. */
const keyOf = (origin, scheduledMs, callsign) => `${origin}|${scheduledMs}|${callsign}`;
export const median = (values) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export async function measurePredictions() {
  const { buildApp } = await dist('app.js');
  const { groundTruth } = await dist('sim/index.js');
  const { ManualClock } = await dist('clock.js');
  const { createLogger } = await dist('logger.js');
  const { loadCatalogue } = await dist('airports/index.js');
  const { loadConfig } = await dist('config.js');
  const { POLL_INTERVAL_MS } = await dist('boards/poller.js');
  const airports = loadCatalogue()
    .airports.map((a) => a.iata)
    .slice(0, AIRPORTS);
  const from = Date.parse(`${FIRST_DAY}T00:00:00Z`);
  const to = from + DAYS * DAY;
  const target = sqliteTarget();
  const clock = new ManualClock(from - LEAD_IN);
  const config = pollOnlyConfig(loadConfig({ LOG_LEVEL: 'silent' }), target);
  const app = await buildApp({ config, clock, logger: createLogger('silent') });
  const started = performance.now();
  let passes = 0;
  let rows = 0;
  let events = 0;
  try {
    const account = await app.accounts.createAccount({
      slug: 'bench-predictions',
      plan: { included: 10, overage: false },
      unlimited: false,
    });
    await app.db.kysely
      .insertInto('endpoints')
      .values(benchEndpoint(account.value.id, 'wh_benchpredictions', 'bench', airports, clock.now()))
      .execute();
    for (let at = from - LEAD_IN; at <= to + LEAD_OUT; at += POLL_INTERVAL_MS) {
      clock.set(at);
      const report = await app.poller.pass(at);
      passes++;
      rows += report.rows;
      events += report.events;
      if (report.failedBoards.length) throw new Error(`boards not read at ${report.at}: ${report.failedBoards}`);
      if (passes % 24 === 0) console.error(`predictions: pass ${passes} at ${report.at}, ${events} events so far`);
    }
    const stored = await app.db.kysely
      .selectFrom('board_events')
      .select(['type', 'created_at', 'data'])
      .where('board', '=', 'departures')
      .where('type', 'in', ['flight.predicted_qualifying', 'flight.qualifying'])
      .execute();
    const predicted = new Map();
    const shown = new Map();
    for (const event of stored) {
      const data = JSON.parse(event.data);
      const f = data.flight;
      const key = keyOf(f.origin.iata, Date.parse(f.scheduledAt), f.callsign);
      const at = Number(event.created_at);
      if (event.type === 'flight.predicted_qualifying') predicted.set(key, { at, prediction: data.prediction });
      else if (data.qualification.reason === 'delayed') shown.set(key, at);
    }
    const pollMs = performance.now() - started;

    // The truth: every departure of the watched airports scheduled in the measured days (flight dates
    // are UTC; one day either side covers the legs a flight date puts across midnight).
    const watched = new Set(airports);
    const truth = new Map();
    const legs = new Map();
    for (let day = from - DAY; day < to + DAY; day += DAY) {
      for (const t of groundTruth(app.sim, isoDay(day))) {
        legs.set(`${t.flightNumber}|${t.flightDate}|${t.origin}`, t);
        const scheduled = Date.parse(t.scheduledDeparture);
        if (!watched.has(t.origin) || t.operation !== 'passenger' || scheduled < from || scheduled >= to) continue;
        truth.set(keyOf(t.origin, scheduled, t.callsign), t);
      }
    }
    return {
      airports: airports.length,
      passes,
      rows,
      events,
      pollMs,
      predicted,
      shown,
      truth,
      legs,
      from,
      to,
      ceiling: ceilingOf(app.sim, watched, from, to),
    };
  } finally {
    await app.close();
    await target.drop();
  }
}

/**
 * The most the rule can reach (its ceiling), from the world's internals (the bench may read them; the
 * predictor never does): the positives whose aircraft was 3 h or more late from its earlier legs alone
 * (ready to leave, after its inbound's arrival and turnaround, 180 minutes or more after schedule), those
 * 3 h 15 or more (a prediction before the inbound leaves is held to that), and of those how many could be
 * known 2 h before the scheduled departure: the delay that started the aircraft's late chain was
 * announced, and every leg of the chain had its registration on the boards (10 h before each departure).
 */
function ceilingOf(world, watched, from, to) {
  const MINUTE = 60_000;
  const seen = new Set();
  const out = { positives: 0, lateAircraft: 0, lateAircraftMedium: 0, knownTwoHours: 0, keys: new Set() };
  for (let day = from - DAY; day < to + DAY; day += DAY) {
    for (const leg of world.legsOn(isoDay(day))) {
      const id = `${leg.plan.id}|${leg.scheduledDeparture}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const s = leg.scheduledDeparture;
      if (!watched.has(leg.plan.from.iata) || leg.plan.rotation.operation !== 'passenger' || leg.cancelled) continue;
      if (s < from || s >= to || Math.round((leg.actualDeparture - s) / MINUTE) < QUALIFYING_MINUTES) continue;
      out.positives++;
      const inherited = (leg.readyAt - s) / MINUTE;
      if (inherited < QUALIFYING_MINUTES) continue;
      out.lateAircraft++;
      out.keys.add(keyOf(leg.plan.from.iata, s, leg.plan.callsign));
      if (inherited >= QUALIFYING_MINUTES + 15) out.lateAircraftMedium++;
      let known = s - 10 * HOUR;
      for (let at = leg.inbound; at; at = at.inbound) {
        known = Math.max(known, at.scheduledDeparture - 10 * HOUR);
        const carried = Math.max(0, at.readyAt - at.scheduledDeparture);
        const own = at.actualDeparture - at.scheduledDeparture - carried;
        if (carried === 0 || carried < own) {
          known = Math.max(known, at.firstNoticeAt);
          break;
        }
      }
      if (known <= s - TARGETS.leadMinutes * MINUTE) out.knownTwoHours++;
    }
  }
  return out;
}

/** The cause a departure's delay is put down to: its own (at its airport) or the one that started its aircraft's late chain. */
function causeLabel(t, legs) {
  const { kind, originLeg } = t.delayCause;
  if (kind !== 'knock_on') return `own: ${kind}`;
  const start = originLeg && legs.get(`${originLeg.flightNumber}|${originLeg.flightDate}|${originLeg.origin}`);
  return `knock-on: ${start ? start.delayCause.kind : 'unknown'}`;
}

/** Precision, recall and leads of the predictions against one truth measure (`late`: the flight qualified). */
function score(m, late) {
  const positives = [...m.truth].filter(([, t]) => late(t));
  const scored = [...m.predicted].filter(([key]) => m.truth.has(key));
  const right = scored.filter(([key]) => late(m.truth.get(key)));
  const wrong = scored.filter(([key]) => !late(m.truth.get(key)));
  const leads = right.map(([key, p]) => (Date.parse(m.truth.get(key).scheduledDeparture) - p.at) / 60_000);
  // How much earlier than the board itself (its delay reaching 3 h) the prediction came.
  const gains = right.filter(([key]) => m.shown.has(key)).map(([key, p]) => (m.shown.get(key) - p.at) / 60_000);
  // A departure later cancelled qualifies too (as cancelled), though not as the delay predicted.
  const qualified = scored.filter(([key]) => late(m.truth.get(key)) || m.truth.get(key).status === 'cancelled');
  const confidence = ['high', 'medium'].map((level) => {
    const of = scored.filter(([, p]) => p.prediction.confidence === level);
    return { level, predictions: of.length, right: of.filter(([key]) => late(m.truth.get(key))).length };
  });
  return {
    positives: positives.length,
    predictions: scored.length,
    right: right.length,
    wrongCancelled: wrong.filter(([key]) => m.truth.get(key).status === 'cancelled').length,
    wrongList: wrong.map(([key, p]) => ({
      key,
      p,
      t: m.truth.get(key),
      lead: (Date.parse(m.truth.get(key).scheduledDeparture) - p.at) / 60_000,
    })),
    wrongDelays: wrong
      .map(([key]) => m.truth.get(key))
      .filter((t) => t.status !== 'cancelled')
      .map((t) => t.departureDelayMinutes ?? t.arrivalDelayMinutes),
    precision: scored.length ? right.length / scored.length : null,
    precisionQualified: scored.length ? qualified.length / scored.length : null,
    confidence,
    recall: positives.length ? right.length / positives.length : null,
    leadMinutes: median(leads),
    gainMinutes: median(gains),
    positivesList: positives,
  };
}

export function analysePredictions(m) {
  const departure = score(m, (t) => t.status !== 'cancelled' && t.departureDelayMinutes >= QUALIFYING_MINUTES);
  const arrival = score(m, (t) => t.status !== 'cancelled' && (t.arrivalDelayMinutes ?? 0) >= QUALIFYING_MINUTES);
  // Recall by cause, and what the board alone showed of the positives before their scheduled departure.
  const causes = new Map();
  let boardBefore = 0;
  let eitherBefore = 0;
  let eitherTwoHours = 0;
  const boardLeads = [];
  for (const [key, t] of departure.positivesList) {
    const label = causeLabel(t, m.legs);
    const row = causes.get(label) ?? { label, positives: 0, predicted: 0, shown: 0 };
    row.positives++;
    if (m.predicted.has(key)) row.predicted++;
    causes.set(label, row);
    const scheduled = Date.parse(t.scheduledDeparture);
    const shownAt = m.shown.get(key);
    if (shownAt !== undefined) {
      const lead = (scheduled - shownAt) / 60_000;
      boardLeads.push(lead);
      if (lead > 0) {
        boardBefore++;
        row.shown++;
      }
    }
    // Known ahead by either event: the earlier of the prediction and the board's own 3 h delay.
    const first = Math.min(m.predicted.get(key)?.at ?? Infinity, shownAt ?? Infinity);
    if (first < scheduled) eitherBefore++;
    if (first <= scheduled - TARGETS.leadMinutes * 60_000) eitherTwoHours++;
  }
  const predictedOutside = [...m.predicted.keys()].filter((key) => !m.truth.has(key)).length;
  const ceilingPredicted = [...m.ceiling.keys].filter((key) => m.predicted.has(key)).length;
  return {
    departure,
    arrival,
    causes: [...causes.values()].sort((a, b) => b.positives - a.positives || a.label.localeCompare(b.label)),
    boardBefore,
    eitherBefore,
    eitherTwoHours,
    boardLead: median(boardLeads),
    predictedOutside,
    ceilingPredicted,
  };
}

export const pct = (x) => (x === null ? '–' : `${(x * 100).toFixed(1)} %`);
export const mins = (x) => (x === null ? '–' : `${Math.round(x)} min`);
const met = (ok) => (ok ? 'met' : '**NOT met**');

export function renderPredictions(m, a) {
  const d = a.departure;
  const days = (m.to - m.from) / DAY;
  const lines = [
    HEADING,
    '',
    `Written by \`node bench/run.mjs predictions\` (bench/predictions.mjs) on ${new Date().toISOString().slice(0, 10)}: ` +
      `${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}. ` +
      `The board poll as the poller runs it, in one process on a fresh SQLite database and the manual clock, over the simulated world ` +
      `(seed \`flightstatus\`), one endpoint watching the ${m.airports} catalogue airports: a pass every 30 minutes from ` +
      `${new Date(m.from - LEAD_IN).toISOString().slice(0, 16)}Z to ${new Date(m.to + LEAD_OUT).toISOString().slice(0, 16)}Z ` +
      `(${m.passes} passes, ${m.rows.toLocaleString('en')} rows read, ${m.events.toLocaleString('en')} events, ${(m.pollMs / 1000).toFixed(0)} s), ` +
      `so the ${days} measured days from ${FIRST_DAY} are seen from their boards' 12-hour look-ahead to their 3-hour look-back. ` +
      "Every stored `flight.predicted_qualifying` is then compared with the world's truth (`groundTruth`).",
    '',
    "What counts as qualifying is the service's rule for a departure (src/boards/engine.ts): a passenger departure 3 hours or more " +
      "late, the departures board's delay standing in for the arrival delay. A prediction only ever says 'delayed', so the truth's " +
      `positives are the ${d.positives.toLocaleString('en')} operated passenger departures of the watched airports scheduled in the measured days ` +
      'whose actual departure was 180 minutes or more late (cancellations are not counted; a prediction of a departure later cancelled ' +
      'counts as wrong, though the departure qualifies as cancelled: the "precision, cancellations right" column counts it right). Lead: scheduled departure minus the pass that stored the prediction. Gain: the pass where the board itself ' +
      'first showed the departure 3 h late (its `flight.qualifying`) minus the prediction.',
    '',
    '| measure | positives | predictions | right | precision | precision, cancellations right | recall | median lead (right ones) | median gain over the board |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [label, s] of [
    ['departure delay ≥ 3 h (the service’s rule)', d],
    ['arrival delay ≥ 3 h (EU261’s measure)', a.arrival],
  ]) {
    lines.push(
      `| ${label} | ${s.positives.toLocaleString('en')} | ${s.predictions} | ${s.right} | ${pct(s.precision)} | ${pct(s.precisionQualified)} | ${pct(s.recall)} | ` +
        `${mins(s.leadMinutes)} | ${mins(s.gainMinutes)} |`,
    );
  }
  lines.push(
    '',
    `Targets of the coming work (52 airports, 2 simulated days, against the world's truth, the service's rule): ` +
      `precision ≥ 95 %: ${pct(d.precision)} (${met(d.precision !== null && d.precision >= TARGETS.precision)}); ` +
      `recall ≥ 50 %: ${pct(d.recall)} (${met(d.recall !== null && d.recall >= TARGETS.recall)}); ` +
      `median lead ≥ 2 h before the scheduled departure: ${mins(d.leadMinutes)} ` +
      `(${met(d.leadMinutes !== null && d.leadMinutes >= TARGETS.leadMinutes)}).`,
    '',
    `Wrong predictions: ${d.predictions - d.right} (${d.wrongCancelled} of a departure later cancelled` +
      (d.wrongDelays.length ? `; the others' actual delays: ${d.wrongDelays.join(', ')} min` : '') +
      `). ${a.predictedOutside} more predictions were of departures outside the measured days (not counted). ` +
      `The board alone showed ${a.boardBefore.toLocaleString('en')} of the ${d.positives.toLocaleString('en')} positives 3 h late before their scheduled ` +
      `departure (median lead of the board's own \`flight.qualifying\`: ${mins(a.boardLead)}); the prediction or the board together flagged ` +
      `${a.eitherBefore} before their scheduled departure, ${a.eitherTwoHours} of them 2 h or more before. By confidence: ` +
      d.confidence.map((c) => `${c.level} ${c.right} right of ${c.predictions}`).join(', ') +
      '.',
    '',
    'Recall by the truth\'s delay cause (src/sim/truth.ts, `delayCause`): "own" is the departure\'s own delay at its airport ' +
      '(weather, ATC, airport, a technical fault, crew); "knock-on" a late inbound aircraft, by the cause that started its chain.',
    '',
    '| cause | positives | predicted | recall | the board showed it 3 h late before departure |',
    '|---|---|---|---|---|',
  );
  for (const c of a.causes)
    lines.push(`| ${c.label} | ${c.positives} | ${c.predicted} | ${pct(c.predicted / c.positives)} | ${c.shown} |`);
  const c = m.ceiling;
  lines.push(
    '',
    "The rule's ceiling. `flight.predicted_qualifying` says the aircraft is late on an earlier leg so that the departure cannot leave " +
      "less than 3 h late (the specification, section 3.2); a departure late for its own reasons (a fault, its airport's weather or ATC) " +
      `is not its to predict. Of the ${c.positives} positives, the aircraft alone (ready to leave, after its inbound's arrival and turnaround) ` +
      `made ${c.lateAircraft} 3 h or more late (${pct(c.positives ? c.lateAircraft / c.positives : null)} of the positives: the most recall the rule can reach), ` +
      `${c.lateAircraftMedium} of them 3 h 15 or more (the bar before the inbound has left); ${c.knownTwoHours} could be known 2 h before their ` +
      `scheduled departure (the delay that started the chain announced, every leg's registration on the boards). Predicted: ` +
      `${a.ceilingPredicted} of the ${c.lateAircraft}. The recall target of 50 % is out of reach under the rule.`,
    '',
    'Wrong predictions (the departure, the lead, the projected delay, what happened, and the legs the prediction rested on, oldest first, ' +
      'with what the boards showed of each):',
    '',
    '| departure | lead | projected delay | truth | legs |',
    '|---|---|---|---|---|',
  );
  for (const w of d.wrongList.sort((x, y) => x.key.localeCompare(y.key)))
    lines.push(
      `| ${w.t.flightNumber} ${w.t.origin}–${w.t.destination} ${w.t.scheduledDeparture.slice(0, 16)}Z | ${mins(w.lead)} | ` +
        `${w.p.prediction.projectedDelayMinutes} min | ${w.t.status === 'cancelled' ? `cancelled (${w.t.delayCause.kind})` : `${w.t.departureDelayMinutes} min late`} | ` +
        (w.p.prediction.basis ?? [])
          .map((l) => `${l.flightNumber} ${l.origin.iata}–${l.destination.iata} (${l.observed})`)
          .join(', ') +
        ' |',
    );
  lines.push(
    '',
    'How a prediction is made (src/boards/predict.ts, docs/boards.md "Predictions"): every board of the pass is read first, and the ' +
      "departure's registration is followed back through the legs any of them lists (chain.ts): the inbound, and the leg before it " +
      'while the inbound has not left. Each is projected forward: it leaves no earlier than its schedule, its published time and the ' +
      "aircraft's readiness (the leg before's arrival plus the type's minimum turnaround), and lasts at least 0.85 of its scheduled " +
      "block; the departure is projected at the aircraft's readiness, and predicted from 3 h (3 h 15 min before the inbound has left). " +
      'None is made when the aircraft would then only be back at its base after 05:00 the next morning (carriers cancel such ' +
      "out-and-backs), nor once the board itself shows the departure 3 h late. A departure's own delay, its airport's weather and " +
      'waves are not predicted: they are not what the event says.',
    '',
  );
  return lines.join('\n');
}

export async function runPredictionsBench() {
  const measured = await measurePredictions();
  const section = renderPredictions(measured, analysePredictions(measured));
  writeSection(HEADING, section);
  process.stdout.write(`\n${section}`);
  return section;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    await runPredictionsBench();
  } catch (error) {
    console.error(error);
    process.exit(1);
  }
}
