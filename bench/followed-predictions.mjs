#!/usr/bin/env node
// How good `flight.predicted_qualifying` is for a watched flight followed through the providers
// (docs/watches.md, "Predictions of a followed flight"), against the simulated world's truth: every
// passenger departure of two simulated days, anywhere in the world, asked as following asks it
// (dist/, run `npm run build` first): its questions at the times follow-plan.ts sets from each
// answer (the first 3 hours before its date begins, the next 2 hours before its departure), the
// aircraft's day read as follow.ts reads it (follow-aircraft.ts: at the question itself when the
// registration is known from the answer before, else at once when the answer that first names it is
// the last before the departure), and the prediction made from that day as the service makes it.
// The simulated world answers in-process (its provider view at each question's moment); the service's
// path (HTTP, the database, the webhook) is proven by test/watch-follow.test.ts. About 10 seconds.
//
//   node bench/followed-predictions.mjs      measure, print the section and write it into docs/performance.md
//   node bench/run.mjs followed-predictions  the same, through the bench entry point
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeSection } from './sections.mjs';
import { size } from './smoke.mjs';
import { median, mins, pct } from './predictions.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HEADING = '## Predictions of followed flights';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const FIRST_DAY = '2026-11-20';
const DAYS = size(2, 1);
/** More windows of DAYS days, measured beside the first to show its figures are not the luck of two days. */
const OTHER_WINDOWS = size(['2026-11-22', '2026-12-01', '2027-01-10'], []);
/** A smoke run asks one flight in this many. */
const EVERY = size(1, 50);
const QUALIFYING_MINUTES = 180;
const SEED = 'flightstatus';

const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);

export async function measureFollowedPredictions(firstDay = FIRST_DAY) {
  const { createSimWorld, groundTruth, SimProvider } = await dist('sim/index.js');
  const { loadReferenceAirports } = await dist('airports/index.js');
  const { firstAskAt, initialState, nextAskAt } = await dist('watches/follow-plan.js');
  const { aircraftDayWindow, aircraftToRead, lastBeforeDeparture, predictFromDay, watchedLegIn } =
    await dist('watches/follow-aircraft.js');
  const airports = loadReferenceAirports();
  const world = createSimWorld(SEED);
  // Each flight's questions go forward in time, the next flight's start again: a clock set at will.
  const clock = { at: 0, now: () => clock.at };
  const sim = new SimProvider(world, clock);
  const started = performance.now();
  const flights = [];
  for (let d = 0; d < DAYS; d++) {
    const date = new Date(Date.parse(`${firstDay}T00:00:00Z`) + d * 24 * HOUR).toISOString().slice(0, 10);
    const departures = groundTruth(world, date).filter(
      (t) => t.operation === 'passenger' && t.scheduledDeparture.slice(0, 10) === date,
    );
    for (let i = 0; i < departures.length; i += EVERY) {
      const truth = departures[i];
      const watch = {
        flight_number: truth.flightNumber,
        origin: truth.origin,
        destination: null,
        flight_date: date,
        date_basis: 'utc',
      };
      const departs = Date.parse(truth.scheduledDeparture);
      const asked = { questions: 0, reads: 0, added: 0, prediction: null, predictedAt: null, shownAt: null };
      const state = initialState();
      const engine = { predictedAt: null, qualifiedAt: null };
      state.departure = engine;
      const dayOf = async (leg) => {
        asked.reads++;
        const answer = await sim.lookupRotation({
          registration: leg.aircraft.registration,
          icao24: null,
          ...aircraftDayWindow(leg),
        });
        return answer.outcome === 'hit' ? answer.value : null;
      };
      let last = null;
      let at = firstAskAt(date, 'utc', 0);
      while (at !== null && at < departs && asked.prediction === null && asked.shownAt === null) {
        clock.at = at;
        let leg = null;
        let day = null;
        if (aircraftToRead(last, state, at) !== null) {
          day = await dayOf(last);
          leg = day && watchedLegIn(day, watch, airports);
        }
        if (!leg) {
          asked.questions++;
          const answer = await sim.lookupFlight({
            designator: truth.flightNumber,
            flightDate: date,
            origin: truth.origin,
          });
          leg = answer.value?.find((l) => l.departure.scheduled === departs) ?? null;
          day =
            leg && aircraftToRead(leg, state, at) !== null && lastBeforeDeparture(leg, at, 0) ? await dayOf(leg) : null;
          if (day) asked.added++;
        }
        if (!leg || leg.cancelled || leg.departure.actual !== null) break;
        // The flight's own answer 3 hours late: the flight qualifies itself (its `flight.qualifying`).
        if (leg.departure.estimated !== null && leg.departure.estimated - departs >= QUALIFYING_MINUTES * MINUTE) {
          asked.shownAt = at;
          break;
        }
        if (day) {
          const prediction = predictFromDay(leg, day, truth.flightNumber, airports, at);
          if (prediction) {
            asked.prediction = prediction;
            asked.predictedAt = at;
          }
        }
        last = leg;
        at = nextAskAt(leg, at, 0).at;
      }
      flights.push({ truth, departs, ...asked });
    }
  }
  return { firstDay, flights, ms: performance.now() - started };
}

export function analyseFollowedPredictions({ flights }) {
  const positive = (t) => t.status !== 'cancelled' && t.departureDelayMinutes >= QUALIFYING_MINUTES;
  const positives = flights.filter((f) => positive(f.truth));
  const predicted = flights.filter((f) => f.prediction);
  const right = predicted.filter((f) => positive(f.truth));
  const cancelled = predicted.filter((f) => f.truth.status === 'cancelled');
  const wrong = predicted.filter((f) => !positive(f.truth) && f.truth.status !== 'cancelled');
  const knockOns = positives.filter((f) => f.truth.delayCause.kind === 'knock_on');
  const onTime = flights.filter((f) => f.truth.status === 'on_time');
  const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  return {
    flights: flights.length,
    positives: positives.length,
    predictions: predicted.length,
    right: right.length,
    precision: predicted.length ? right.length / predicted.length : null,
    precisionCancelledRight: predicted.length ? (right.length + cancelled.length) / predicted.length : null,
    recall: positives.length ? right.length / positives.length : null,
    knockOns: knockOns.length,
    knockOnsPredicted: knockOns.filter((f) => f.prediction).length,
    shownBefore: positives.filter((f) => f.shownAt !== null).length,
    either: positives.filter((f) => f.prediction || f.shownAt !== null).length,
    leadMinutes: median(right.map((f) => (f.departs - f.predictedAt) / MINUTE)),
    wrongCancelled: cancelled.length,
    wrongDelays: wrong.map((f) => `${f.truth.flightNumber} ${f.truth.departureDelayMinutes} min`),
    readsPerFlight: mean(flights.map((f) => f.reads)),
    readsPerOnTime: mean(onTime.map((f) => f.reads)),
    addedPerFlight: mean(flights.map((f) => f.added)),
    addedPerOnTime: mean(onTime.map((f) => f.added)),
    byConfidence: ['high', 'medium'].map((level) => {
      const at = predicted.filter((f) => f.prediction.confidence === level);
      return { level, predictions: at.length, right: at.filter((f) => positive(f.truth)).length };
    }),
  };
}

/** `others`: the analyses of OTHER_WINDOWS, by first day. */
export function renderFollowedPredictions(m, a, others = []) {
  return [
    HEADING,
    '',
    `Written by \`node bench/run.mjs followed-predictions\` (bench/followed-predictions.mjs) on ${new Date().toISOString().slice(0, 10)}: ` +
      `${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${(m.ms / 1000).toFixed(1)} s a window. ` +
      `Every passenger departure of ${DAYS} simulated day${DAYS > 1 ? 's' : ''} from ${FIRST_DAY} (seed \`${SEED}\`, ${a.flights.toLocaleString('en')} flights, anywhere in the world${EVERY > 1 ? `, one in ${EVERY}` : ''}), ` +
      'watched as nobody\'s boards show it and asked as following asks it (docs/watches.md, "Predictions of a followed flight"): ' +
      "its questions at the times src/watches/follow-plan.ts sets from each answer, its aircraft's day read where src/watches/follow-aircraft.ts reads it, " +
      "and the prediction made from that day as the service makes it, each against the simulated world's provider view at the question's moment; " +
      'then compared with the world\'s truth. Positives as in "Predictions" above: operated passenger departures 180 minutes or more late. ' +
      "The service's path (HTTP, the database, the signed delivery) is test/watch-follow.test.ts's, on both databases.",
    '',
    '| days | positives | predictions | right | precision | precision, cancellations right | recall | recall of the knock-ons | median lead (right ones) |',
    '|---|---|---|---|---|---|---|---|---|',
    `| ${DAYS} from ${m.firstDay} | ${a.positives} | ${a.predictions} | ${a.right} | ${pct(a.precision)} | ${pct(a.precisionCancelledRight)} | ${pct(a.recall)} | ` +
      `${pct(a.knockOns ? a.knockOnsPredicted / a.knockOns : null)} (${a.knockOnsPredicted} of ${a.knockOns}) | ${mins(a.leadMinutes)} |`,
    ...others.map(
      ([day, o]) =>
        `| ${DAYS} from ${day} | ${o.positives} | ${o.predictions} | ${o.right} | ${pct(o.precision)} | ${pct(o.precisionCancelledRight)} | ` +
        `${pct(o.recall)} | ${pct(o.knockOns ? o.knockOnsPredicted / o.knockOns : null)} (${o.knockOnsPredicted} of ${o.knockOns}) | ${mins(o.leadMinutes)} |`,
    ),
    '',
    `- Wrong predictions: ${a.predictions - a.right} (${a.wrongCancelled} of a departure later cancelled, which qualifies as cancelled` +
      (a.wrongDelays.length ? `; the others: ${a.wrongDelays.join(', ')}` : '') +
      '). By confidence: ' +
      a.byConfidence.map((c) => `${c.level} ${c.right} right of ${c.predictions}`).join(', ') +
      '.',
    `- The flight's own answer showed ${a.shownBefore} of the ${a.positives} positives 3 h late at a question before their departure ` +
      `(their \`flight.qualifying\`); the prediction or that answer flagged ${a.either} before departure.`,
    `- **What it costs:** ${a.readsPerFlight.toFixed(2)} reads of an aircraft's day a flight before its departure (on-time flights ` +
      `${a.readsPerOnTime.toFixed(2)}), of which ${a.addedPerFlight.toFixed(2)} a request more (on-time ${a.addedPerOnTime.toFixed(2)}). ` +
      "A read where the registration is known from the answer before *is* that question (the watched flight is one of the aircraft's " +
      'legs): no request more. Only the read made at once, when the answer that first names the aircraft is the last before ' +
      "departure, adds one (AeroDataBox prices an aircraft's flights between two times at TIER 3, a flight at TIER 2). In the " +
      'simulated world a registration is named 10 hours before departure, so a flight leaving later than about 07:00 UTC is named ' +
      'only at its question 2 hours before. The service\'s count, per flight: "Following a watched flight".',
    "- Why the recall stops here: the prediction is made at the flight's last question before departure, about 2 hours ahead (one " +
      "question, no request spent for the prediction alone), and the event's rule is a late aircraft (the specification, section 3.2): " +
      "a departure late for its own reasons is not its to predict, and an inbound that has already left late shows in the flight's own " +
      'estimate, which qualifies it without a prediction.',
    '',
  ].join('\n');
}

export async function runFollowedPredictionsBench() {
  const measured = await measureFollowedPredictions();
  const others = [];
  for (const day of OTHER_WINDOWS)
    others.push([day, analyseFollowedPredictions(await measureFollowedPredictions(day))]);
  const section = renderFollowedPredictions(measured, analyseFollowedPredictions(measured), others);
  writeSection(HEADING, section);
  process.stdout.write(`\n${section}`);
  return section;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    await runFollowedPredictionsBench();
  } catch (error) {
    console.error(error);
    process.exit(1);
  }
}
