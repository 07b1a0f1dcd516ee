// Why a disrupted flight was disrupted (docs/flight-lookup.md, "Circumstances"): the evidence gathered for a settled lookup that is
// 3 hours or more late, cancelled or diverted, and the finding. Provider calls, each counted where
// the providers count theirs: one for the aircraft's day (by registration, where the provider offers
// it; not where the boards the service kept hold every leg the finding needs: kept-day.ts), one
// weather call per airport and leg (the flight's two, and its origin leg's when the delay started
// earlier), and an airport's past day of boards where it was not watched (read once, then kept:
// src/boards/days.ts).
// Airport-wide figures come from the boards the service watches (watched.ts), or from those past days;
// evidence.ts gathers each leg's.
import { HOUR } from '../clock.js';
import { ConnectionShare } from '../db/share.js';
import type { CallOptions, FlightProvider, ProviderFlight } from '../providers/index.js';
import { ownCause, plannedAhead, type Finding, type LegEvidence } from './attribute.js';
import { EvidenceGatherer, type EvidenceDeps, type Gathering } from './evidence.js';
import {
  arrivalDelayMinutes,
  cancellationRun,
  chainOrigin,
  describe,
  groundedAfter,
  keptReason,
  legOf,
  NIGHT,
  place,
  split,
  type Leg,
} from './rotation.js';
import type { AircraftSeen, Circumstances, Outcome, Seen } from './shapes.js';
import { keptDay, LATE_INBOUND_MINUTES, legsFrom, type Edge } from './kept-day.js';
import { shownFigures, shownSeen, shownWeather } from './shown.js';

export interface CircumstancesDeps extends EvidenceDeps {
  /** The flight providers as the lookup asks them (bounded and counted). */
  providers: FlightProvider[];
}

/** The aircraft's day asked around the flight's departure. */
const ROTATION_BEFORE = 20 * HOUR;
const ROTATION_AFTER = 20 * HOUR;

export class CircumstancesService {
  /** Each leg's weather, airport figures and carrier's day (evidence.ts). */
  private readonly gatherer: EvidenceGatherer;

  constructor(private readonly deps: CircumstancesDeps) {
    this.gatherer = new EvidenceGatherer(deps);
  }

  /**
   * `call`: a batch's meter and budget share for the provider requests made here (the aircraft's day),
   * and its share of the database pool (db/share.ts) for the boards' history read here.
   */
  async assess(
    flight: ProviderFlight,
    outcome: Outcome,
    signal: AbortSignal,
    call: Pick<CallOptions, 'meter' | 'background'> & { share?: ConnectionShare } = {},
  ): Promise<Circumstances> {
    const { share = ConnectionShare.none, ...calls } = call;
    const gathering: Gathering = { signal, share, calls };
    const reasons: string[] = [];
    const leg = legOf(flight);
    if (!leg || !leg.origin || !leg.destination) {
      const seen: Seen = { weather: [], boards: [], aircraft: 'not_available' };
      return {
        assessment: 'unknown',
        cause: 'unknown',
        originLeg: null,
        weather: [],
        airport: [],
        seen,
        reasons: ['The record does not say where and when the flight was to fly.'],
      };
    }
    const carrier = flight.operating?.airline.iata ?? flight.airline.iata ?? flight.airline.icao ?? null;
    // The flight's own evidence first: its boards (read after the fact where not watched) also hold the
    // aircraft's other flights, which may settle the finding without asking for the aircraft's day.
    const first = await this.gatherer.evidence(leg, outcome, carrier, null, gathering);
    const kept = await this.keptDay(flight, leg, outcome, first, gathering);
    // A diversion is judged on its own legs (where and why it landed elsewhere): its aircraft's other flights are not asked for.
    const { day, aircraft } =
      outcome === 'diverted'
        ? { day: null, aircraft: 'not_needed' as const }
        : kept
          ? { day: kept, aircraft: 'boards' as const }
          : await this.rotation(flight, leg, signal, reasons, calls);
    if (kept) reasons.push(keptReason(kept));
    else if (aircraft === 'not_needed')
      reasons.push(
        "A diversion is judged on the weather and the boards where it was to land: the aircraft's other flights do not bear on it, so they were not asked for.",
      );
    else if (!day)
      reasons.push(
        "The aircraft's other flights of the day could not be read, so a late inbound aircraft is not ruled out.",
      );
    const grounded = (index: number) =>
      day && index >= 0 && (!kept || kept.groundedKnown) ? groundedAfter(day.legs, index) : null;
    const own: LegEvidence = { ...first, grounded: grounded(day?.at ?? -1) };
    const ownFinding = ownCause(own, outcome);
    const judge = async (subject: Leg, as: Outcome) => {
      const evidence = await this.gatherer.evidence(
        subject,
        as,
        carrier,
        grounded(day ? day.legs.indexOf(subject) : -1),
        gathering,
      );
      return { subject, evidence, finding: ownCause(evidence, as) };
    };

    // Whose disruption decides: this flight's own, or an earlier leg's of the same aircraft (a knock-on).
    let decided: { subject: Leg; evidence: LegEvidence; finding: Finding } = {
      subject: leg,
      evidence: own,
      finding: ownFinding,
    };
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
          if (
            !knockOn &&
            !EXTERNAL.has(decided.finding.cause) &&
            !plannedAhead(decided.evidence, 'cancelled') &&
            before &&
            !before.cancelled &&
            (arrivalDelayMinutes(before) ?? 0) >= LATE_INBOUND_MINUTES
          ) {
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
    const seenAt = [own.departure, own.arrival].flatMap((end) =>
      end.boards?.cancelledSeenAt != null ? [end.boards.cancelledSeenAt] : [],
    );
    return {
      assessment: finding.assessment,
      cause: knockOn ? 'knock_on' : finding.cause,
      originLeg: knockOn ? subject.ref : null,
      weather: shownWeather(shown),
      airport: shownFigures(shown),
      seen: shownSeen(shown, aircraft),
      reasons,
      ...(outcome === 'cancelled'
        ? { cancellationSeenAt: seenAt.length > 0 ? new Date(Math.min(...seenAt)).toISOString() : null }
        : {}),
    };
  }

  /**
   * The aircraft's day from the rows the boards kept (kept-day.ts), where they hold every leg the
   * finding needs; null where they do not (the provider is then asked). A walk that ran out of rows is
   * settled only where that airport's rows of those hours were all kept (PastBoards.held).
   */
  private async keptDay(
    flight: ProviderFlight,
    leg: Leg,
    outcome: Outcome,
    own: LegEvidence,
    gathering: Gathering,
  ): Promise<{ legs: Leg[]; at: number; groundedKnown: boolean } | null> {
    const registration = flight.aircraft?.registration;
    const { past } = this.deps;
    // A diversion's finding takes nothing from the aircraft's other flights.
    if (!registration || !past || outcome === 'diverted') return null;
    const rows = await gathering.share.run(() =>
      past.aircraft(
        registration,
        leg.scheduledDeparture - ROTATION_BEFORE - NIGHT,
        leg.scheduledDeparture + ROTATION_AFTER + NIGHT,
      ),
    );
    const legs = legsFrom(rows);
    const found = legs && keptDay(leg, outcome, legs);
    if (!found) return null;
    const held = (edge: Edge) => gathering.share.run(() => past.held(edge.airport, edge.from, edge.to));
    if (found.start && !(await held(found.start))) return null;
    const groundedKnown =
      typeof found.grounded === 'boolean' || (found.grounded !== null && (await held(found.grounded)));
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
        {
          registration,
          icao24: flight.aircraft?.icao24 ?? null,
          from: leg.scheduledDeparture - ROTATION_BEFORE,
          to: leg.scheduledDeparture + ROTATION_AFTER,
        },
        { ...call, signal, timeoutMs: this.deps.timeoutMs },
      );
      if (answer.outcome === 'hit' || answer.outcome === 'incomplete') {
        const day = place(leg, answer.value);
        return day.at >= 0 ? { day, aircraft: 'followed' } : { day: null, aircraft: 'not_available' };
      }
    }
    return { day: null, aircraft: offered ? 'not_available' : 'not_offered' };
  }
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
