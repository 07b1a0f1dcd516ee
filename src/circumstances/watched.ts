// An airport's figures from the boards the service watched (docs/weather.md, "Airport-wide
// disruption"): what its window around a flight's hour showed, against the usual of the days before
// (or of the published shares, figures.ts and past.ts), told by whose cancellations the day's were.
// What an airport-hour showed is the same for every flight due then, and a wave is what a claims
// portfolio holds many flights of: once settled, the window's figures are worked out once and kept
// (the flight's own row, carrier and other end are applied per lookup).
import { DAY } from '../clock.js';
import { ConnectionShare } from '../db/share.js';
import { lruCache } from '../lru.js';
import { byCarrier, publishedUsual } from './past.js';
import {
  DAY_HALF,
  hourOf,
  signals,
  WINDOW_AFTER,
  WINDOW_BEFORE,
  type AirportSignals,
  type OwnRow,
  type Usual,
} from './figures.js';
import { Baselines, meanOverWatched, SETTLED } from './baselines.js';
import type { Baseline, BoardHistory, BoardSighting, PastBoards, PastMovement } from './shapes.js';

/** What a watched airport-hour showed, whoever's flight asks. */
interface WindowFigures {
  /** The day around's cancellations and diversions, as sighted. */
  cancelled: BoardSighting[];
  /** Flights shown late in the window. */
  delayed: number;
  usual: Usual;
  baseline: Baseline;
}

export class WatchedBoards {
  readonly baselines: Baselines;
  /** Settled windows' figures, by `airport|hour|days the process read there`. */
  private readonly windows = lruCache<string, WindowFigures>(20_000);

  constructor(
    private readonly boards: BoardHistory,
    private readonly past: PastBoards | undefined,
  ) {
    this.baselines = new Baselines(boards);
  }

  /** Whether the airport's boards were watched over the window around `at` (else the figures come from a past day read after the fact, or none). */
  watched(airport: string, at: number, now: number, share: ConnectionShare): Promise<boolean> {
    const hour = hourOf(at);
    return this.baselines.watched(airport, hour - WINDOW_BEFORE, hour + WINDOW_AFTER, now, share);
  }

  /** The figures around `at` for this flight (its row, carrier and other end: `flight`), of a window `watched` found watched. */
  async signals(
    airport: string,
    at: number,
    flight: OwnRow,
    cancelled: boolean,
    now: number,
    share: ConnectionShare,
  ): Promise<AirportSignals> {
    const hour = hourOf(at);
    const w = await this.window(airport, hour, now, share);
    const seen = signals(airport, at, w.cancelled, w.delayed, w.usual, flight, w.baseline);
    // Whose the day's cancellations were: where its figures come from its flights, where they show a strike, or where this flight was cancelled.
    return w.baseline === 'published_rates' || seen.strikeDay || cancelled
      ? byCarrier(seen, await this.day(airport, hour, share), flight)
      : seen;
  }

  /** The flights the poll kept of the day around the hour: whose cancellations a strike day's or this one's were. */
  private day(airport: string, hour: number, share: ConnectionShare): Promise<PastMovement[]> {
    const { past } = this;
    return past ? share.run(() => past.movements(airport, hour - DAY_HALF, hour + DAY_HALF)) : Promise.resolve([]);
  }

  private async window(airport: string, hour: number, now: number, share: ConnectionShare): Promise<WindowFigures> {
    const key = `${airport}|${hour}|${this.past?.version(airport) ?? 0}`;
    const kept = this.windows.get(key);
    if (kept) return kept;
    const figures = await this.figures(airport, hour, now, share);
    if (hour + DAY_HALF < now - SETTLED) this.windows.set(key, figures);
    return figures;
  }

  private async figures(airport: string, hour: number, now: number, share: ConnectionShare): Promise<WindowFigures> {
    const { boards, baselines, past } = this;
    const [from, to, dayFrom, dayTo] = [hour - WINDOW_BEFORE, hour + WINDOW_AFTER, hour - DAY_HALF, hour + DAY_HALF];
    const [delayedToday, cancelled, delays, cancellations, dayDelays, day] = await Promise.all([
      baselines.settled(`delayed|${airport}|${from}`, to, now, () =>
        share.run(() => boards.hourly('airport', airport, 'flight.delayed', from, to)),
      ),
      baselines.ofDays(airport, dayFrom, dayTo, now, (a, b) =>
        share.run(() => boards.sightings(airport, ['flight.cancelled', 'flight.diverted'], a, b)),
      ),
      baselines.daily('airport', airport, 'flight.delayed', from, to, now, share),
      baselines.daily('airport', airport, 'flight.cancelled', from, to, now, share),
      baselines.daily('airport', airport, 'flight.delayed', dayFrom, dayTo, now, share),
      baselines.daily('airport', airport, 'flight.cancelled', dayFrom, dayTo, now, share),
    ]);
    // A day before counts where the boards were watched in these hours that day: something shown then,
    // or (a quiet window) a read recorded then; not a day the poll watched only at other hours.
    const watched = await Promise.all(
      dayDelays.map(
        async (d, k) =>
          d.count + day[k]!.count > 0 &&
          (delays[k]!.count + cancellations[k]!.count > 0 ||
            (await baselines.watched(airport, from - (k + 1) * DAY, to - (k + 1) * DAY, now, share))),
      ),
    );
    const delayed = delayedToday.reduce((n, h) => n + h.count, 0);
    if (!watched.includes(true) && past) {
      // No day of the week before was watched in these hours (the poll began within it), so they give no
      // usual: the flights the poll kept of these hours, times the published shares, do.
      const rows = await this.day(airport, hour, share);
      if (rows.length > 0)
        return { cancelled, delayed, usual: publishedUsual(rows, from, to), baseline: 'published_rates' };
    }
    // Delays against the window's kept flights times the published share, where the poll kept its hours whole (weather.md, "Usual").
    const window =
      past && (await share.run(() => past.held(airport, from, to)))
        ? await share.run(() => past.movements(airport, from, to))
        : [];
    const { count: usualCancelled, shortNotice } = meanOverWatched(cancellations, watched);
    const usual = {
      delayed: window.length > 0 ? publishedUsual(window, from, to).delayed : meanOverWatched(delays, watched).count,
      cancelled: usualCancelled,
      shortNotice,
      day: meanOverWatched(day, watched).count,
    };
    return { cancelled, delayed, usual, baseline: window.length > 0 ? 'published_delays' : 'days_before' };
  }
}
