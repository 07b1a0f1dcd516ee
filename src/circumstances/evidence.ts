// One leg's evidence (docs/flight-lookup.md, "Circumstances"): the weather reports around its times at
// both ends, each end's airport figures (from the boards the service watches, watched.ts, or from the
// airport's past day read after the fact) and whether its carrier's day was a strike of its own.
import { DAY, HOUR, MINUTE, type Clock } from '../clock.js';
import type { ReferenceAirports } from '../airports/index.js';
import type { ConnectionShare } from '../db/share.js';
import { withDeadline } from '../providers/call.js';
import type { CallOptions } from '../providers/index.js';
import { flagsOf, runwaysOf, severityOf, type WeatherProvider, type WeatherReport } from '../weather/index.js';
import type { EndEvidence, LegEvidence, Observed } from './attribute.js';
import { pastSignals } from './past.js';
import {
  carrierStrike,
  DAY_HALF,
  hourOf,
  WINDOW_AFTER,
  WINDOW_BEFORE,
  type AirportSignals,
  type OwnRow,
} from './figures.js';
import { meanOverWatched } from './baselines.js';
import { WatchedBoards } from './watched.js';
import type { Leg } from './rotation.js';
import type { BoardHistory, BoardSighting, BoardsSeen, Outcome, PastBoards } from './shapes.js';
import { addDays, localMinute, zonedToUtc } from '../providers/zones.js';

/** What the evidence is read from (the circumstances' own dependencies, the flight providers aside). */
export interface EvidenceDeps {
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
export interface Gathering {
  signal: AbortSignal;
  share: ConnectionShare;
  calls: Pick<CallOptions, 'meter' | 'background'>;
}

/** Weather shown around the times a leg left and arrived (or was due to). */
const SHOWN_BEFORE = HOUR;
const SHOWN_AFTER = 30 * MINUTE;

export class EvidenceGatherer {
  /** The figures of the boards the service watched; null where boards are not kept. */
  private readonly watched: WatchedBoards | null;

  constructor(private readonly deps: EvidenceDeps) {
    this.watched = deps.boards ? new WatchedBoards(deps.boards, deps.past) : null;
  }

  /** The leg's evidence at both its ends and its carrier's day; `grounded`, whether the aircraft's later legs were cancelled too (null without its day). */
  async evidence(
    leg: Leg,
    outcome: Outcome,
    carrier: string | null,
    grounded: boolean | null,
    gathering: Gathering,
  ): Promise<LegEvidence> {
    const arrivalAt =
      outcome === 'diverted' && leg.actualDeparture !== null && leg.scheduledArrival !== null
        ? leg.actualDeparture + (leg.scheduledArrival - leg.scheduledDeparture)
        : (leg.scheduledArrival ?? leg.scheduledDeparture);
    const departedAt = leg.actualDeparture ?? leg.scheduledDeparture;
    const arrivedAt = leg.actualArrival ?? arrivalAt;
    const [departure, arrival, strike] = await Promise.all([
      this.end(
        leg.origin!,
        leg.scheduledDeparture,
        Math.min(leg.scheduledDeparture, departedAt) - SHOWN_BEFORE,
        Math.max(leg.scheduledDeparture, departedAt) + SHOWN_AFTER,
        leg,
        carrier,
        gathering,
      ),
      this.end(
        leg.destination!,
        arrivalAt,
        Math.min(arrivalAt, arrivedAt) - SHOWN_BEFORE,
        Math.max(arrivalAt, arrivedAt) + SHOWN_AFTER,
        leg,
        carrier,
        gathering,
      ),
      this.carrierStrike(carrier, leg.scheduledDeparture, gathering.share),
    ]);
    return { leg, departure, arrival, carrierStrike: strike, grounded };
  }

  private async end(
    airport: string,
    at: number,
    from: number,
    to: number,
    leg: Leg,
    carrier: string | null,
    gathering: Gathering,
  ): Promise<EndEvidence> {
    const reference = this.deps.airports.find(airport);
    const asked = { from, to: Math.min(to, from + 2 * DAY - 1) };
    const [weather, { seen, boards }] = await Promise.all([
      reference ? this.reports(reference.icao, asked.from, asked.to, gathering.signal) : Promise.resolve(null),
      this.boardSignals(airport, at, leg, carrier, gathering),
    ]);
    return { airport, at, asked, weather, boardsSeen: seen, boards };
  }

  private async reports(icao: string, from: number, to: number, signal: AbortSignal): Promise<Observed[] | null> {
    const answer = await withDeadline<WeatherReport[]>({ signal, timeoutMs: this.deps.timeoutMs }, (inner) =>
      this.deps.weather.reports({ station: icao, from, to }, { signal: inner, timeoutMs: this.deps.timeoutMs }),
    );
    if (answer.outcome !== 'hit' && answer.outcome !== 'incomplete') return null;
    return answer.value.map((report) => read(report, icao));
  }

  /**
   * The airport's figures around `at`, where its boards were watched then (`BoardHistory.watchedAt`
   * over the window of the figures), else from its day read after the fact (`pastBoards`); otherwise
   * nothing, and why: not watched, not available from the provider, or not kept.
   */
  private async boardSignals(
    airport: string,
    at: number,
    leg: Leg,
    carrier: string | null,
    gathering: Gathering,
  ): Promise<{ seen: BoardsSeen; boards: AirportSignals | null }> {
    const { share } = gathering;
    if (!this.watched) return { seen: 'not_kept', boards: null };
    const now = this.deps.clock.now();
    const own = {
      ...(airport === leg.origin
        ? { board: 'departures' as const, scheduledAt: leg.scheduledDeparture }
        : { board: 'arrivals' as const, scheduledAt: leg.scheduledArrival ?? leg.scheduledDeparture }),
      designators: leg.designators,
      other: airport === leg.origin ? leg.destination : leg.origin,
    };
    if (!(await this.watched.watched(airport, at, now, share))) {
      const past = await this.pastBoards(airport, at, { ...own, carrier }, gathering);
      if (past) return past;
      const { boardsKeptMs } = this.deps;
      // Past the retention, the events of those hours are pruned whether or not they were watched.
      return {
        seen: boardsKeptMs !== undefined && hourOf(at) + WINDOW_AFTER < now - boardsKeptMs ? 'not_kept' : 'not_watched',
        boards: null,
      };
    }
    return {
      seen: 'watched',
      boards: await this.watched.signals(airport, at, { ...own, carrier }, leg.cancelled, now, share),
    };
  }

  /**
   * The airport's figures around `at` from its boards of the local day read after the fact (and of the
   * day before or after, where the window reaches into it); null where no provider reads a past day's
   * board or the day is not over (the boards were then simply not watched).
   */
  private async pastBoards(
    airport: string,
    at: number,
    own: OwnRow,
    gathering: Gathering,
  ): Promise<{ seen: BoardsSeen; boards: AirportSignals | null } | null> {
    const { past, airports } = this.deps;
    const zone = airports.find(airport)?.timezone;
    if (!past || !zone) return null;
    const hour = hourOf(at);
    const [from, to] = [hour - WINDOW_BEFORE, hour + WINDOW_AFTER];
    const date = localMinute(at, zone).slice(0, 10);
    const dates = [...new Set([localMinute(from, zone).slice(0, 10), date, localMinute(to - 1, zone).slice(0, 10)])];
    const outcomes = await Promise.all(
      dates.map((d) => past.read(airport, d, { signal: gathering.signal, ...gathering.calls })),
    );
    if (outcomes.includes('not_offered') || outcomes.includes('not_over')) return null;
    if (outcomes.some((o) => o !== 'read')) return { seen: 'not_available', boards: null };
    const day = { from: zonedToUtc(`${date}T00:00`, zone)!, to: zonedToUtc(`${addDays(date, 1)}T00:00`, zone)! };
    const movements = await gathering.share.run(() =>
      past.movements(airport, Math.min(from, day.from), Math.max(to, day.to)),
    );
    return { seen: 'read', boards: pastSignals(airport, at, movements, day, own) };
  }

  private async carrierStrike(carrier: string | null, at: number, share: ConnectionShare): Promise<boolean | null> {
    const { boards } = this.deps;
    if (!boards || !this.watched || !carrier) return null;
    const { baselines } = this.watched;
    const [from, to, now] = [hourOf(at) - DAY_HALF, hourOf(at) + DAY_HALF, this.deps.clock.now()];
    const [today, days] = await Promise.all([
      baselines.settled(`carrier|${carrier}|${from}`, to, now, () =>
        share.run(() => boards.carrierCancellations(carrier, from, to)),
      ),
      baselines.daily('carrier', carrier, 'flight.cancelled', from, to, now, share),
    ]);
    const usual = meanOverWatched(
      days,
      days.map((d) => d.count > 0),
    ).count;
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
    const flags = flagsOf(
      report,
      runwaysOf(icao).flatMap((r) => r.headings),
    );
    readings.set(report, (observed = { report, flags, severity: severityOf(report, flags) }));
  }
  return observed;
}
