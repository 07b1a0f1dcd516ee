// The cause of one leg's own disruption, from its evidence, and how far that evidence supports the
// airline's defence (Art. 5(3) of Regulation 261/2004). Pure: service.ts collects the evidence. The
// order is the order of strength: a strike of the airline's own staff or of a third party (a whole
// day's cancellations), weather beyond limits in the reports at the time, an airport-wide wave of
// cancellations (the airport) or of delays (air traffic control, with weather within limits quoted),
// and last what is left to the airline: a technical fault, or its crew; where a part of the evidence
// was not seen, that is said, and the defence's assessment is `unknown`.
import { HOUR, iso, MINUTE } from '../clock.js';
import type { Severity, WeatherFlag, WeatherReport } from '../weather/index.js';
import { hourOf, WINDOW_AFTER, WINDOW_BEFORE, type AirportSignals } from './figures.js';
import type { Leg } from './rotation.js';
import { SHORT_NOTICE, type BoardsSeen, type CauseKind, type ExtraordinaryAssessment } from './shapes.js';

export interface Observed {
  report: WeatherReport;
  flags: WeatherFlag[];
  severity: Severity;
}

/**
 * What is known about one end of a leg. `weather: null`: no reports could be had. `boards`: what the
 * boards showed, only where they were watched at the time (`boardsSeen`); null otherwise, which says
 * nothing about what happened there.
 */
export interface EndEvidence {
  airport: string;
  /** The time the decision looks at: the scheduled departure or arrival (a diversion: when it was due to land). */
  at: number;
  /** The window the weather reports were asked for: the scheduled and actual times, an hour before to half an hour after. */
  asked: { from: number; to: number };
  weather: Observed[] | null;
  boardsSeen: BoardsSeen;
  boards: AirportSignals | null;
}

export interface LegEvidence {
  leg: Leg;
  departure: EndEvidence;
  arrival: EndEvidence;
  /** The carrier cancelled far more than usual that day on every watched board; null when unknown. */
  carrierStrike: boolean | null;
  /** Every later leg of the aircraft's day is cancelled too (a fault that grounded it); null without the day. */
  grounded: boolean | null;
}

export interface Finding {
  cause: CauseKind | 'unknown';
  assessment: ExtraordinaryAssessment;
  reasons: string[];
}

/** Weather decides a leg when a report within this of the time it looks at shows it. */
export const WEATHER_WINDOW = 45 * MINUTE;
/** Other airlines' cancellations made hours ahead in the window that show a forecast (a storm) behind one's own. */
export const FORECAST_CANCELLATIONS = 3;

/**
 * How long before the leg was to leave the boards first showed it cancelled (at either end: its
 * arrival too is listed from 12 hours before it lands); null when they did not.
 */
export function cancelledAhead(e: LegEvidence): number | null {
  const seen = [e.departure.boards?.cancelledSeenAt, e.arrival.boards?.cancelledSeenAt].filter(
    (at): at is number => typeof at === 'number',
  );
  return seen.length > 0 ? e.leg.scheduledDeparture - Math.min(...seen) : null;
}

/**
 * A cancellation decided hours before the flight (on the boards `SHORT_NOTICE` or more before it was
 * to leave: a crew roster, not a fault found at the aircraft): the weather at its time and the day's waves (the
 * airport's failures, air traffic control) came after the decision and do not explain it; a forecast
 * does only when other airlines cancelled ahead as well.
 */
export function plannedAhead(e: LegEvidence, outcome: 'cancelled' | 'diverted' | 'delayed'): boolean {
  return outcome === 'cancelled' && (cancelledAhead(e) ?? 0) >= SHORT_NOTICE;
}

const hhmm = (at: number) => iso(at).slice(11, 16);

function near(end: EndEvidence, severity: Severity): Observed | null {
  const found = (end.weather ?? []).filter(
    (o) => Math.abs(o.report.at - end.at) <= WEATHER_WINDOW && o.severity === severity,
  );
  return found[0] ?? null;
}

function quote(end: EndEvidence, o: Observed): string {
  return `${o.flags.join(', ').replace(/_/g, ' ')} at ${end.airport} ${hhmm(o.report.at)} UTC (METAR ${o.report.raw})`;
}

/**
 * The finding, and after what it shows, what could not be checked (an end whose boards were not
 * watched, or whose reports could not be had): a finding stands on what was seen, and says what was not.
 */
export function ownCause(e: LegEvidence, outcome: 'cancelled' | 'diverted' | 'delayed'): Finding {
  const finding = decide(e, outcome);
  const after = outcome === 'cancelled' ? readAfter([e.departure, e.arrival]) : [];
  // A finding the gaps left `unknown` already says what was not seen.
  if (finding.assessment === 'unknown') return { ...finding, reasons: [...finding.reasons, ...after] };
  return { ...finding, reasons: [...finding.reasons, ...unseen([e.departure, e.arrival]), ...after] };
}

/**
 * For a cancellation, the ends whose boards were read after the fact: a past board shows which flights
 * were cancelled, not when, so a cancellation decided ahead (a roster, a strike announced) is not told
 * from one made on the day, and the rule stands on what the day shows.
 */
function readAfter(ends: EndEvidence[]): string[] {
  const read = ends.filter((end) => end.boards && !end.boards.announcements).map((end) => end.airport);
  if (read.length === 0) return [];
  return [
    `${read.join(' and ')}'s boards were read after the day, as it ended: they show which flights were cancelled, not when each cancellation was announced, so whether this one was decided hours ahead or on the day could not be seen.`,
  ];
}

/** Sentences for what could not be checked at these ends: no reports, boards not watched or not kept. */
function unseen(ends: EndEvidence[]): string[] {
  const out: string[] = [];
  const unchecked = ends.filter((end) => !end.weather || end.weather.length === 0).map((end) => end.airport);
  const unwatched = ends.filter((end) => !end.boards);
  if (unchecked.length > 0)
    out.push(
      `No weather reports could be had for ${unchecked.join(' and ')}, so extraordinary circumstances can be neither shown nor ruled out.`,
    );
  if (unwatched.length > 0) out.push(notWatched(unwatched));
  return out;
}

function decide(e: LegEvidence, outcome: 'cancelled' | 'diverted' | 'delayed'): Finding {
  const ends = [e.departure, e.arrival];
  if (e.carrierStrike) {
    return {
      cause: 'airline_strike',
      assessment: 'not_indicated',
      reasons: [
        'The carrier cancelled far more flights than usual that day across the airports watched: a strike of its own staff, which is not an extraordinary circumstance (C-28/20 Airhelp v SAS).',
      ],
    };
  }
  // A strike is announced days ahead and its flights cancelled long before: a flight the boards first
  // showed cancelled hours before it was due, or whose cancellation was not seen, may be one of them;
  // one cancelled at short notice on a strike day was cancelled on the day, for the day's reason.
  const ahead = cancelledAhead(e);
  const onTheDay = outcome === 'cancelled' && ahead !== null && ahead < SHORT_NOTICE;
  // A strike day read after the fact (its spread through the day, not its announcements) stands over
  // weather beyond limits at the flight's time: its flights were cancelled days ahead, before the storm;
  // a storm lasts hours, and does not spread cancellations through half a day's hours.
  const strike = onTheDay ? undefined : ends.find((end) => end.boards?.strikeDay);
  if (strike) {
    return {
      cause: 'third_party_strike',
      assessment: 'possibly_extraordinary',
      reasons: [
        `${strike.airport}'s boards showed cancellations by many carriers all day, far beyond usual: a strike of air traffic control or airport staff, which may be an extraordinary circumstance (Art. 5(3), recital 14); the airline must prove it and that it took all reasonable measures (C-549/07).`,
      ],
    };
  }
  const planned = plannedAhead(e, outcome);
  for (const end of outcome === 'diverted' ? [e.arrival] : ends) {
    const severe = near(end, 'beyond_limits');
    const forecast = (end.boards?.plannedByOthers ?? 0) >= FORECAST_CANCELLATIONS;
    if (severe && (!planned || forecast)) {
      const ahead = planned
        ? ` It was cancelled ${Math.round(cancelledAhead(e)! / HOUR)} hours ahead, as were ${end.boards!.plannedByOthers} flights of other airlines there: for the weather forecast.`
        : '';
      return {
        cause: 'weather',
        assessment: 'likely_extraordinary',
        reasons: [
          `${cap(quote(end, severe))}: weather beyond the limits aircraft land and leave in, which may be extraordinary circumstances (Art. 5(3)); the airline must prove it and that it took all reasonable measures (C-549/07).${ahead}`,
        ],
      };
    }
  }
  // A day where the flight's carrier cancelled far more than the others at an end: its own, where its
  // network's count did not show it (a day read after the fact, or a hub nearly all its flights touch).
  // Not over a storm at the flight's time: a storm where a carrier flies cancels its flights and not the
  // others' on the same board, which fly elsewhere. The flights to the other end are left out of it
  // (`carrierDay`): a strike there, seen or not, cancels those and not the rest.
  const carrierDay = ends.find((end) => end.boards?.carrierDay);
  if (carrierDay) {
    return {
      cause: 'airline_strike',
      assessment: 'not_indicated',
      reasons: [
        `${carrierDay.airport}'s boards of that day show the carrier's flights cancelled far more than other airlines' there, which flew: a strike of its own staff or its own operation, not an extraordinary circumstance (C-28/20 Airhelp v SAS; C-549/07).`,
      ],
    };
  }
  const cancelWave = planned ? undefined : ends.find((end) => end.boards?.cancelWave);
  if (cancelWave) return wave(cancelWave, 'airport');
  const closed = planned ? undefined : ends.find((end) => end.boards?.divertWave);
  if (closed) return wave(closed, 'airport', `${closed.boards!.divertWave} flights due to land diverted elsewhere`);
  // A wave of delays far beyond usual is a cut in the airport's capacity, and the cut is air traffic
  // control's (flow restrictions), whatever prompted it: weather within limits at the time lets
  // aircraft land and leave, and is quoted as what may have prompted it, not named the cause.
  const delayWave = planned ? undefined : ends.find((end) => end.boards?.delayWave);
  if (delayWave) {
    const found = wave(delayWave, 'atc');
    const within = near(delayWave, 'within_limits');
    if (!within) return found;
    return {
      ...found,
      reasons: [
        ...found.reasons,
        `${cap(quote(delayWave, within))}: weather within the limits aircraft land and leave in, which may be why the restrictions were imposed; on its own it stops no flight.`,
      ],
    };
  }
  // Nothing outside the airline was seen. Where everything that could have shown an outside cause was
  // looked at, what is left is its own operation (`not_indicated`). Where a part was not (an end whose
  // boards no one could read), that is not "nothing happened": the assessment is `unknown`, and the
  // cause named is what the evidence seen leaves, said as such. Not where no boards were seen at all,
  // where the weather itself could not be read, or where it was bad within limits at an end whose
  // boards were not seen (the weather may be the cause there): then none is named.
  const mild = ends.map((end) => ({ end, o: near(end, 'within_limits') })).find((x) => x.o);
  const gaps = unseen(ends);
  const noReports = ends.some((end) => !end.weather || end.weather.length === 0);
  const noBoards = ends.every((end) => !end.boards);
  if (noReports || noBoards || (gaps.length > 0 && mild && !mild.end.boards)) {
    if (mild)
      gaps.push(
        `${cap(quote(mild.end, mild.o!))}: weather within the limits aircraft land and leave in, which explains a disruption like this one only if it slowed the airport, and that could not be checked.`,
      );
    return { cause: 'unknown', assessment: 'unknown', reasons: gaps };
  }
  const own = airlinesOwn(e, outcome, planned, mild, gaps.length > 0);
  if (gaps.length === 0) return own;
  const named =
    own.cause === 'unknown'
      ? 'No cause is named'
      : `The cause named (${own.cause}) is what the evidence seen leaves, not what it shows`;
  return {
    cause: own.cause,
    assessment: 'unknown',
    reasons: [
      ...own.reasons,
      ...gaps,
      `${named}: whether the airline's defence could stand is unknown until those boards are read.`,
    ],
  };
}

/** What is left to the airline when the evidence seen shows nothing outside it: its crew, a fault, or either. */
function airlinesOwn(
  e: LegEvidence,
  outcome: 'cancelled' | 'diverted' | 'delayed',
  planned: boolean,
  mild: { end: EndEvidence; o: Observed | null } | undefined,
  partly: boolean,
): Finding {
  const seenEnds = [e.departure, e.arrival].filter((end) => end.boards).map((end) => end.airport);
  const disruption = partly
    ? `${seenEnds.join(' and ')}'s boards showed no airport-wide disruption`
    : 'no airport-wide disruption was seen';
  const quiet = mild
    ? `${cap(quote(mild.end, mild.o!))}: weather within the limits aircraft land and leave in, with no airport-wide disruption on the boards, which does not explain a disruption like this one`
    : `The reports at ${e.departure.airport} and ${e.arrival.airport} show no weather that stops flights, and ${disruption}`;
  if (planned && e.grounded !== true) {
    return {
      cause: 'crew',
      assessment: 'not_indicated',
      reasons: [
        `${quiet}. The cancellation was on the boards ${Math.round(cancelledAhead(e)! / HOUR)} hours ahead and the aircraft flew the rest of its day: a crew the airline could not roster, which is its own responsibility, not an extraordinary circumstance.`,
      ],
    };
  }
  // When it was cancelled was not seen (boards read after the day show how it ended): what can be
  // seen is whether the aircraft flew again that day. A fault that cancels a pair keeps the aircraft
  // on the ground until it is fixed; one that flies its next legs was not grounded: its crew or its plan.
  const unseenNotice = outcome === 'cancelled' && cancelledAhead(e) === null;
  if (unseenNotice && e.grounded === false) {
    return {
      cause: 'crew',
      assessment: 'not_indicated',
      reasons: [
        `${quiet}. When it was cancelled is not on the boards read after the day, but the aircraft flew again that day: no fault kept it on the ground, so a crew the airline could not roster or its own planning, its own responsibility, not an extraordinary circumstance.`,
      ],
    };
  }
  // Neither when nor what followed: a fault and a crew look the same. Either is the airline's own, so
  // the assessment stands; the cause is not guessed.
  if (unseenNotice && e.grounded === null) {
    return {
      cause: 'unknown',
      assessment: 'not_indicated',
      reasons: [
        `${quiet}. What is left is the airline's own operation: a technical fault (C-549/07 Wallentin-Hermann) or a crew it could not roster, neither an extraordinary circumstance. Which of the two is not said: when it was cancelled is not on the boards read after the day, and nothing later of the aircraft that day shows whether it flew again (a fault keeps it on the ground; a missing crew does not).`,
      ],
    };
  }
  const why = unseenNotice
    ? ' When it was cancelled is not on the boards read after the day, but the aircraft flew no more that day: a fault that kept it on the ground.'
    : '';
  return {
    cause: 'technical',
    assessment: 'not_indicated',
    reasons: [
      `${quiet}. What is left is the airline's own operation; a technical fault is not an extraordinary circumstance (C-549/07 Wallentin-Hermann).${why}`,
    ],
  };
}

/** Why the boards of these ends say nothing: not watched at the time, or no longer kept. */
function notWatched(ends: EndEvidence[]): string {
  const what = ends.map((end) => {
    const from = hourOf(end.at) - WINDOW_BEFORE;
    const hours = `${hhmm(from)}–${hhmm(from + WINDOW_BEFORE + WINDOW_AFTER)} UTC`;
    if (end.boardsSeen === 'not_kept') return `${end.airport}'s boards of ${hours} are not kept by this service`;
    if (end.boardsSeen === 'not_available')
      return `${end.airport}'s boards were not watched ${hours} and the flight-data provider holds none of that day`;
    return `${end.airport}'s boards were not watched ${hours}`;
  });
  return `${cap(what.join(', and '))}, so an airport-wide disruption there (a strike, a closure, air traffic control restrictions) can be neither shown nor ruled out.`;
}

function wave(end: EndEvidence, cause: 'airport' | 'atc', shown?: string): Finding {
  const f = end.boards!.figures;
  // The usual of this count: the window's flights times a published share, or the days before.
  const published =
    f.baseline === 'published_rates' || (f.baseline === 'published_delays' && cause === 'atc' && !shown);
  const usually = published ? 'about' : 'usually';
  const what =
    shown ??
    (cause === 'airport'
      ? `${f.cancelled} cancellations (${usually} ${f.usual.cancelled})`
      : `${f.delayed} delayed flights (${usually} ${f.usual.delayed})`);
  const meaning =
    cause === 'airport'
      ? 'an airport-wide problem (a runway closed, a systems failure), which may be an extraordinary circumstance'
      : 'air traffic control restrictions, which may be an extraordinary circumstance';
  const base = published
    ? ` (the usual: the flights due then times the published share ${cause === 'atc' ? 'delayed' : 'cancelled'})`
    : '';
  return {
    cause,
    assessment: 'possibly_extraordinary',
    reasons: [
      `${end.airport}'s boards showed ${what}${base} between ${hhmm(Date.parse(f.from))} and ${hhmm(Date.parse(f.to))} UTC: ${meaning} (Art. 5(3)); the boards do not say what caused it, and the airline must prove it (C-549/07).`,
    ],
  };
}

const cap = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
