// Why a disrupted flight was disrupted (docs/flight-lookup.md, "Circumstances"): the evidence gathered for a settled lookup that is
// 3 hours or more late, cancelled or diverted, and the finding. Provider calls, each counted where
// the providers count theirs: one for the aircraft's day (by registration, where the provider offers
// it; not where the boards the service kept hold every leg the finding needs: kept-day.ts), one
// weather call per airport and leg (the flight's two, and its origin leg's when the delay started
// earlier), and an airport's past day of boards where it was not watched (read once, then kept:
// src/boards/days.ts).
// Airport-wide figures come from the boards the service watches (watched.ts), or from those past days.
import { DAY, HOUR, MINUTE, type Clock } from '../clock.js';
import type { ReferenceAirports } from '../airports/index.js';
import { ConnectionShare } from '../db/share.js';
import { withDeadline } from '../providers/call.js';
import type { CallOptions, FlightProvider, ProviderFlight } from '../providers/index.js';
import { flagsOf, runwaysOf, severityOf, type WeatherProvider, type WeatherReport } from '../weather/index.js';
import { ownCause, plannedAhead, type EndEvidence, type Finding, type LegEvidence, type Observed } from './attribute.js';
import { pastSignals } from './past.js';
import { carrierStrike, DAY_HALF, hourOf, WINDOW_AFTER, WINDOW_BEFORE, type AirportSignals, type OwnRow } from './figures.js';
import { meanOverWatched } from './baselines.js';
import { WatchedBoards } from './watched.js';
import { arrivalDelayMinutes, cancellationRun, chainOrigin, describe, groundedAfter, keptReason, legOf, NIGHT, place, split, type Leg } from './rotation.js';
import type { AircraftSeen, BoardHistory, BoardSighting, BoardsSeen, Circumstances, Outcome, PastBoards, Seen } from './shapes.js';
import { keptDay, LATE_INBOUND_MINUTES, legsFrom, type Edge } from './kept-day.js';
import { shownFigures, shownSeen, shownWeather } from './shown.js';
import { addDays, localMinute, zonedToUtc } from '../providers/zones.js';

export interface CircumstancesDeps {
  /** The flight providers as the lookup asks them (bounded and counted). */
  providers: FlightProvider[];
  weather: WeatherProvider;
  /** The boards' history; null where boards are not kept (a resolver without a database). */
  boards: BoardHistory | null;
  airports: ReferenceAirports;
  timeoutMs: number;
  /** The service clock: which of the boards' hours are long enough past to keep counted. */
  clock: Clock;
  /** How long board events are kept (FLIGHTSTATUS_RETENTION_DAYS): boards of hours older than that are `not_kept`, not `not_watched`. */
  boardsKeptMs?: number;
  /** Airports' boards of past days read after the fact where they were not watched (src/boards/days.ts); absent: not read. */
  past?: PastBoards;
}

/** What one lookup's evidence gathering runs under: its signal, its batch's meter and budget share, its share of the pool. */
interface Gathering {
  signal: AbortSignal;
  share: ConnectionShare;
  calls: Pick<CallOptions, 'meter' | 'background'>;
}


/** The aircraft's day asked around the flight's departure. */
const ROTATION_BEFORE = 20 * HOUR;
const ROTATION_AFTER = 20 * HOUR;
/** Weather shown around the times a leg left and arrived (or was due to). */
const SHOWN_BEFORE = HOUR;
const SHOWN_AFTER = 30 * MINUTE;

export class CircumstancesService {
  /** The figures of the boards the service watched; null where boards are not kept. */
  private readonly watched: WatchedBoards | null;

  constructor(private readonly deps: CircumstancesDeps) {
    this.watched = deps.boards ? new WatchedBoards(deps.boards, deps.past) : null;
  }

  /**
   * `call`: a batch's meter and budget share for the provider requests made here (the aircraft's day),
   * and its share of the database pool (db/share.ts) for the boards' history read here.
   */
  async assess(flight: ProviderFlight, outcome: Outcome, signal: AbortSignal, call: Pick<CallOptions, 'meter' | 'background'> & { share?: ConnectionShare } = {}): Promise<Circumstances> {
    const { share = ConnectionShare.none, ...calls } = call;
    const gathering: Gathering = { signal, share, calls };
    const reasons: string[] = [];
    const leg = legOf(flight);
    if (!leg || !leg.origin || !leg.destination) {
      const seen: Seen = { weather: [], boards: [], aircraft: 'not_available' };
      return { assessment: 'unknown', cause: 'unknown', originLeg: null, weather: [], airport: [], seen, reasons: ['The record does not say where and when the flight was to fly.'] };
    }
    const carrier = flight.operating?.airline.iata ?? flight.airline.iata ?? flight.airline.icao ?? null;
    // The flight's own evidence first: its boards (read after the fact where not watched) also hold the
    // aircraft's other flights, which may settle the finding without asking for the aircraft's day.
    const first = await this.evidence(leg, outcome, carrier, null, gathering);
    const kept = await this.keptDay(flight, leg, outcome, first, gathering);
    // A diversion is judged on its own legs (where and why it landed elsewhere): its aircraft's other flights are not asked for.
    const { day, aircraft } =
      outcome === 'diverted' ? { day: null, aircraft: 'not_needed' as const } : kept ? { day: kept, aircraft: 'boards' as const } : await this.rotation(flight, leg, signal, reasons, calls);
    if (kept) reasons.push(keptReason(kept));
    else if (aircraft === 'not_needed') reasons.push("A diversion is judged on the weather and the boards where it was to land: the aircraft's other flights do not bear on it, so they were not asked for.");
    else if (!day) reasons.push("The aircraft's other flights of the day could not be read, so a late inbound aircraft is not ruled out.");
    const grounded = (index: number) => (day && index >= 0 && (!kept || kept.groundedKnown) ? groundedAfter(day.legs, index) : null);
    const own: LegEvidence = { ...first, grounded: grounded(day?.at ?? -1) };
    const ownFinding = ownCause(own, outcome);
    const judge = async (subject: Leg, as: Outcome) => {
      const evidence = await this.evidence(subject, as, carrier, grounded(day ? day.legs.indexOf(subject) : -1), gathering);
      return { subject, evidence, finding: ownCause(evidence, as) };
    };

    // Whose disruption decides: this flight's own, or an earlier leg's of the same aircraft (a knock-on).
    let decided: { subject: Leg; evidence: LegEvidence; finding: Finding } = { subject: leg, evidence: own, finding: ownFinding };
    let knockOn: string | null = null;
    if (day) {
      const { legs, at } = day;
      if (outcome === 'delayed') {
        const origin = chainOrigin(legs, at);
        if (origin !== at) {
          const parts = split(legs, at)!;
          decided = await judge(legs[origin]!, outcomeOf(legs[origin]!));
          knockOn = `The aircraft came late from its earlier flight ${describe(legs[at - 1]!)}: ${Math.round(parts.inherited)} of the ${Math.round(parts.inherited + parts.own)} minutes this flight left late were spent waiting for it; the delay started on ${describe(legs[origin]!)}.`;
        }
      } else if (outcome === 'cancelled') {
        const run = cancellationRun(legs, at);
        const before = run.before;
        const pairOutbound = run.start === at - 1 && legs[run.start]!.origin === leg.destination;
        if (before?.diverted) {
          decided = await judge(before, 'diverted');
          knockOn = `The aircraft diverted on ${describe(before)} and its flights after that were cancelled.`;
        } else {
          if (pairOutbound) {
            // Cancelled with its outbound, for the outbound's reason: where and when that leg was to
            // fly decides, unless only this flight's own evidence shows something outside the airline.
            const outbound = await judge(legs[run.start]!, 'cancelled');
            if (EXTERNAL.has(outbound.finding.cause) || !EXTERNAL.has(ownFinding.cause)) decided = outbound;
            reasons.push(`It was cancelled together with the aircraft's flight out, ${describe(legs[run.start]!)}.`);
          } else if (run.start !== at && !STRIKES.has(ownFinding.cause)) {
            decided = await judge(legs[run.start]!, 'cancelled');
            knockOn = `The aircraft's flights were cancelled from ${describe(legs[run.start]!)} on, this one among them.`;
          }
          // Nothing outside the airline explains it, and the aircraft came in very late: the late inbound
          // (its chain's first leg) is why, unless the cancellation was decided before that.
          if (!knockOn && !EXTERNAL.has(decided.finding.cause) && !plannedAhead(decided.evidence, 'cancelled') && before && !before.cancelled && (arrivalDelayMinutes(before) ?? 0) >= LATE_INBOUND_MINUTES) {
            const origin = legs[chainOrigin(legs, legs.indexOf(before))]!;
            decided = await judge(origin, 'delayed');
            knockOn = `The aircraft arrived ${Math.round(arrivalDelayMinutes(before)!)} minutes late on ${describe(before)}, too late for the flights after it; the delay started on ${describe(origin)}.`;
          }
        }
      }
    }
    const { subject, evidence, finding } = decided;
    if (knockOn) {
      reasons.push(knockOn);
      reasons.push(
        `Since C-74/19 (TAP), an airline may rely on an extraordinary circumstance that hit an earlier flight of the same aircraft, if it directly caused this disruption. On ${describe(subject)}: ${finding.reasons.join(' ')}`,
      );
    } else {
      reasons.push(...finding.reasons);
    }
    const shown = evidence === own ? [own] : [own, evidence];
    const seenAt = [own.departure, own.arrival].flatMap((end) => (end.boards?.cancelledSeenAt != null ? [end.boards.cancelledSeenAt] : []));
    return {
      assessment: finding.assessment,
      cause: knockOn ? 'knock_on' : finding.cause,
      originLeg: knockOn ? subject.ref : null,
      weather: shownWeather(shown),
      airport: shownFigures(shown),
      seen: shownSeen(shown, aircraft),
      reasons,
      ...(outcome === 'cancelled' ? { cancellationSeenAt: seenAt.length > 0 ? new Date(Math.min(...seenAt)).toISOString() : null } : {}),
    };
  }

  /**
   * The aircraft's day from the rows the boards kept (kept-day.ts), where they hold every leg the
   * finding needs; null where they do not (the provider is then asked). A walk that ran out of rows is
   * settled only where that airport's rows of those hours were all kept (PastBoards.held).
   */
  private async keptDay(flight: ProviderFlight, leg: Leg, outcome: Outcome, own: LegEvidence, gathering: Gathering): Promise<{ legs: Leg[]; at: number; groundedKnown: boolean } | null> {
    const registration = flight.aircraft?.registration;
    const { past } = this.deps;
    // A diversion's finding takes nothing from the aircraft's other flights.
    if (!registration || !past || outcome === 'diverted') return null;
    const rows = await gathering.share.run(() => past.aircraft(registration, leg.scheduledDeparture - ROTATION_BEFORE - NIGHT, leg.scheduledDeparture + ROTATION_AFTER + NIGHT));
    const legs = legsFrom(rows);
    const found = legs && keptDay(leg, outcome, legs);
    if (!found) return null;
    const held = (edge: Edge) => gathering.share.run(() => past.held(edge.airport, edge.from, edge.to));
    if (found.start && !(await held(found.start))) return null;
    const groundedKnown = typeof found.grounded === 'boolean' || (found.grounded !== null && (await held(found.grounded)));
    // Whether the aircraft flew again decides only a cancellation planned ahead (crew, not a fault that
    // grounded it) enough to ask the provider's day for it. After the fact it would tell crew from fault
    // too, but at an aircraft's day per cancellation, which a dense portfolio read from its airport-days
    // must not spend (docs/boards.md, "The hours kept whole"; docs/decisions.md).
    if (outcome === 'cancelled' && !groundedKnown && plannedAhead(own, 'cancelled')) return null;
    return { legs: found.legs, at: found.at, groundedKnown };
  }

  /** The aircraft's day, from the first provider that offers it; null when none could tell. */
  private async rotation(
    flight: ProviderFlight,
    leg: Leg,
    signal: AbortSignal,
    reasons: string[],
    call: Pick<CallOptions, 'meter' | 'background'>,
  ): Promise<{ day: { legs: Leg[]; at: number } | null; aircraft: AircraftSeen }> {
    const registration = flight.aircraft?.registration ?? null;
    if (!registration) {
      reasons.push('The record names no aircraft registration, so its earlier flights could not be followed.');
      return { day: null, aircraft: 'no_registration' };
    }
    let offered = false;
    for (const provider of this.deps.providers) {
      if (!provider.lookupRotation || signal.aborted) continue;
      offered = true;
      const answer = await provider.lookupRotation(
        { registration, icao24: flight.aircraft?.icao24 ?? null, from: leg.scheduledDeparture - ROTATION_BEFORE, to: leg.scheduledDeparture + ROTATION_AFTER },
        { ...call, signal, timeoutMs: this.deps.timeoutMs },
      );
      if (answer.outcome === 'hit' || answer.outcome === 'incomplete') {
        const day = place(leg, answer.value);
        return day.at >= 0 ? { day, aircraft: 'followed' } : { day: null, aircraft: 'not_available' };
      }
    }
    return { day: null, aircraft: offered ? 'not_available' : 'not_offered' };
  }

  private async evidence(leg: Leg, outcome: Outcome, carrier: string | null, grounded: boolean | null, gathering: Gathering): Promise<LegEvidence> {
    const arrivalAt =
      outcome === 'diverted' && leg.actualDeparture !== null && leg.scheduledArrival !== null
        ? leg.actualDeparture + (leg.scheduledArrival - leg.scheduledDeparture)
        : (leg.scheduledArrival ?? leg.scheduledDeparture);
    const departedAt = leg.actualDeparture ?? leg.scheduledDeparture;
    const arrivedAt = leg.actualArrival ?? arrivalAt;
    const [departure, arrival, strike] = await Promise.all([
      this.end(leg.origin!, leg.scheduledDeparture, Math.min(leg.scheduledDeparture, departedAt) - SHOWN_BEFORE, Math.max(leg.scheduledDeparture, departedAt) + SHOWN_AFTER, leg, carrier, gathering),
      this.end(leg.destination!, arrivalAt, Math.min(arrivalAt, arrivedAt) - SHOWN_BEFORE, Math.max(arrivalAt, arrivedAt) + SHOWN_AFTER, leg, carrier, gathering),
      this.carrierStrike(carrier, leg.scheduledDeparture, gathering.share),
    ]);
    return { leg, departure, arrival, carrierStrike: strike, grounded };
  }

  private async end(airport: string, at: number, from: number, to: number, leg: Leg, carrier: string | null, gathering: Gathering): Promise<EndEvidence> {
    const reference = this.deps.airports.find(airport);
    const asked = { from, to: Math.min(to, from + 2 * DAY - 1) };
    const [weather, { seen, boards }] = await Promise.all([
      reference ? this.reports(reference.icao, asked.from, asked.to, gathering.signal) : Promise.resolve(null),
      this.boardSignals(airport, at, leg, carrier, gathering),
    ]);
    return { airport, at, asked, weather, boardsSeen: seen, boards };
  }

  private async reports(icao: string, from: number, to: number, signal: AbortSignal): Promise<Observed[] | null> {
    const answer = await withDeadline<WeatherReport[]>({ signal, timeoutMs: this.deps.timeoutMs }, (inner) => this.deps.weather.reports({ station: icao, from, to }, { signal: inner, timeoutMs: this.deps.timeoutMs }));
    if (answer.outcome !== 'hit' && answer.outcome !== 'incomplete') return null;
    return answer.value.map((report) => read(report, icao));
  }

  /**
   * The airport's figures around `at`, where its boards were watched then (`BoardHistory.watchedAt`
   * over the window of the figures), else from its day read after the fact (`pastBoards`); otherwise
   * nothing, and why: not watched, not available from the provider, or not kept.
   */
  private async boardSignals(airport: string, at: number, leg: Leg, carrier: string | null, gathering: Gathering): Promise<{ seen: BoardsSeen; boards: AirportSignals | null }> {
    const { share } = gathering;
    if (!this.watched) return { seen: 'not_kept', boards: null };
    const now = this.deps.clock.now();
    const own = {
      ...(airport === leg.origin ? { board: 'departures' as const, scheduledAt: leg.scheduledDeparture } : { board: 'arrivals' as const, scheduledAt: leg.scheduledArrival ?? leg.scheduledDeparture }),
      designators: leg.designators,
      other: airport === leg.origin ? leg.destination : leg.origin,
    };
    if (!(await this.watched.watched(airport, at, now, share))) {
      const past = await this.pastBoards(airport, at, { ...own, carrier }, gathering);
      if (past) return past;
      const { boardsKeptMs } = this.deps;
      // Past the retention, the events of those hours are pruned whether or not they were watched.
      return { seen: boardsKeptMs !== undefined && hourOf(at) + WINDOW_AFTER < now - boardsKeptMs ? 'not_kept' : 'not_watched', boards: null };
    }
    return { seen: 'watched', boards: await this.watched.signals(airport, at, { ...own, carrier }, leg.cancelled, now, share) };
  }

  /**
   * The airport's figures around `at` from its boards of the local day read after the fact (and of the
   * day before or after, where the window reaches into it); null where no provider reads a past day's
   * board or the day is not over (the boards were then simply not watched).
   */
  private async pastBoards(airport: string, at: number, own: OwnRow, gathering: Gathering): Promise<{ seen: BoardsSeen; boards: AirportSignals | null } | null> {
    const { past, airports } = this.deps;
    const zone = airports.find(airport)?.timezone;
    if (!past || !zone) return null;
    const hour = hourOf(at);
    const [from, to] = [hour - WINDOW_BEFORE, hour + WINDOW_AFTER];
    const date = localMinute(at, zone).slice(0, 10);
    const dates = [...new Set([localMinute(from, zone).slice(0, 10), date, localMinute(to - 1, zone).slice(0, 10)])];
    const outcomes = await Promise.all(dates.map((d) => past.read(airport, d, { signal: gathering.signal, ...gathering.calls })));
    if (outcomes.includes('not_offered') || outcomes.includes('not_over')) return null;
    if (outcomes.some((o) => o !== 'read')) return { seen: 'not_available', boards: null };
    const day = { from: zonedToUtc(`${date}T00:00`, zone)!, to: zonedToUtc(`${addDays(date, 1)}T00:00`, zone)! };
    const movements = await gathering.share.run(() => past.movements(airport, Math.min(from, day.from), Math.max(to, day.to)));
    return { seen: 'read', boards: pastSignals(airport, at, movements, day, own) };
  }

  private async carrierStrike(carrier: string | null, at: number, share: ConnectionShare): Promise<boolean | null> {
    const { boards } = this.deps;
    if (!boards || !this.watched || !carrier) return null;
    const { baselines } = this.watched;
    const [from, to, now] = [hourOf(at) - DAY_HALF, hourOf(at) + DAY_HALF, this.deps.clock.now()];
    const [today, days] = await Promise.all([
      baselines.settled(`carrier|${carrier}|${from}`, to, now, () => share.run(() => boards.carrierCancellations(carrier, from, to))),
      baselines.daily('carrier', carrier, 'flight.cancelled', from, to, now, share),
    ]);
    const usual = meanOverWatched(days, days.map((d) => d.count > 0)).count;
    if (today.length === 0 && usual === 0) return null;
    // The carrier's day (kept once settled) is read by every lookup of its flights that day.
    let byUsual = strikes.get(today);
    if (!byUsual) strikes.set(today, (byUsual = new Map()));
    let strike = byUsual.get(usual);
    if (strike === undefined) byUsual.set(usual, (strike = carrierStrike(today, usual)));
    return strike;
  }
}

/** Whether a carrier's day of cancellations was its strike, by the day's sightings and its usual. */
const strikes = new WeakMap<BoardSighting[], Map<number, boolean>>();

/**
 * A report as the findings read it: its flags against the station's runways. Kept per report where the
 * weather provider hands the same report again (a provider that keeps what it read, as the simulated
 * world does): every lookup at an airport around the same hours reads the same reports.
 */
const readings = new WeakMap<WeatherReport, Observed>();
function read(report: WeatherReport, icao: string): Observed {
  let observed = readings.get(report);
  if (!observed) {
    const flags = flagsOf(report, runwaysOf(icao).flatMap((r) => r.headings));
    readings.set(report, (observed = { report, flags, severity: severityOf(report, flags) }));
  }
  return observed;
}

/** Causes outside the airline's own operation. */
const EXTERNAL = new Set<string>(['weather', 'atc', 'airport', 'third_party_strike']);
/**
 * A strike cancels each of the day's flights itself; anything else at a flight's own time does not
 * explain its cancellation where the aircraft's flights were already cancelled from an earlier one.
 */
const STRIKES = new Set<string>(['airline_strike', 'third_party_strike']);

function outcomeOf(leg: Leg, otherwise: Outcome = 'delayed'): Outcome {
  return leg.cancelled ? 'cancelled' : leg.diverted ? 'diverted' : otherwise;
}
