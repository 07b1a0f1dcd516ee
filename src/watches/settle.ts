// A watch ending by itself (docs/watches.md, "Settled"): a periodic job asks the flights capability
// for the settled record of each active watch whose flight should be over, without a credit (a watch
// paid its one at creation), and when the record is complete queues one `flight.settled` to the
// watch's endpoints and ends the watch, in one transaction; a flight every provider says does not
// exist ends its watch too, with the not-found verdict in the same event. A watch is due as soon as
// its flight's own end is seen (a landing or cancellation on a board, or following's answer: the
// watch's settle_at), else by its date; a record still incomplete is asked again with a back-off,
// and after SETTLE_MAX_CHECKS such answers the watch is ended as it stands (`incomplete`).
import { iso, HOUR, type Clock } from '../clock.js';
import type { Database, FlightWatchesTable } from '../db/index.js';
import { parseFlightQuery, type FlightResolver, type FlightStatusData } from '../flights/index.js';
import type { Logger } from '../logger.js';
import type { ObservedFlights } from '../providers/index.js';
import { queueWatchEvent } from '../webhooks/index.js';
import { queryFields } from './service.js';
import { backgroundTurn } from '../foreground.js';

/** How often the job looks: the board poll's interval, so a record complete on a pass settles within one more. */
export const SETTLE_INTERVAL_MS = HOUR / 2;
/**
 * A watch is asked about from this long after the start of its flight date (UTC): the end of the
 * day plus six hours, by when a flight that left on its date has landed and its final times are in
 * (a longer flight, or a late one, is simply asked again on the next runs until its record is complete).
 */
export const SETTLE_AFTER_MS = 30 * HOUR;
/** A local flight date begins up to 14 hours before the UTC one of the same name (UTC+14). */
const LOCAL_AHEAD_MS = 14 * HOUR;
/** Watches asked per run: a bound on the provider requests one run may make (most settle from kept board rows). */
export const SETTLE_PER_RUN = 100;
/** The back-off after the n-th incomplete (or unanswered) ask: an hour, doubled each time, at most a day. */
export const settleBackoffMs = (checks: number) => Math.min(24 * HOUR, HOUR * 2 ** Math.max(0, checks - 1));
/**
 * Incomplete answers after which a watch is ended as its record stands (`endedReason: incomplete`):
 * the eighth comes about four days after the first (1 + 2 + 4 + 8 + 16 + 24 + 24 hours between them).
 */
export const SETTLE_MAX_CHECKS = 8;
/** Board events that show a flight's end: its watches are due at once (their record may be complete). */
const FINAL_EVENT_TYPES = ['flight.landed', 'flight.cancelled'];

/** The listing position of `flight.settled`: after any event observed at the same moment (board_event_watches.position). */
const LAST = 1_000_000;

export type EndedReason = 'settled' | 'not_found' | 'incomplete';

export interface SettleDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  resolver: FlightResolver;
  /** The flights the board poller saw final: a flight they hold whole is answered without a provider. */
  observed?: ObservedFlights;
  /** Makes the evidence URL absolute (FLIGHTSTATUS_PUBLIC_URL, or the address the service listens on). */
  baseUrl: string;
}

export interface SettleReport {
  asked: number;
  settled: number;
  notFound: number;
  /** Ended as their record stood, after SETTLE_MAX_CHECKS incomplete answers. */
  gaveUp: number;
  /** Provider requests the resolves made (counted by their meter). */
  providerRequests: number;
}

const dateOf = (at: number) => iso(at).slice(0, 10);

/** The event id of a watch's `flight.settled`: derived from the watch, so a second run (or a second worker) writes no second delivery. */
export const settledEventId = (watchId: string) => `evt_settled_${watchId.replace(/^wch_/, '')}`;

export class WatchSettler {
  /** Where the last run stopped: runs go round the due watches, so a record that stays incomplete starves no other. */
  private after = '';

  constructor(private readonly o: SettleDeps) {}

  async run(at: number, stopping: AbortSignal): Promise<SettleReport> {
    const report: SettleReport = { asked: 0, settled: 0, notFound: 0, gaveUp: 0, providerRequests: 0 };
    await this.dueByTheirEnd(at);
    let due = await this.due(at, this.after);
    if (due.length === 0 && this.after !== '') due = await this.due(at, '');
    this.after = due.length < SETTLE_PER_RUN ? '' : due[due.length - 1]!.id;
    for (const watch of due) {
      // One watch a turn of the event loop: on SQLite and the simulated world every step below answers
      // at once, and a run of 100 watches would hold requests for all of them.
      await backgroundTurn();
      if (stopping.aborted) break;
      const parsed = parseFlightQuery(queryFields({ ...watch, endpoints: [] }));
      if (!parsed.ok) continue;
      const meter = { requests: 0 };
      report.asked += 1;
      let resolution;
      try {
        resolution = await this.o.resolver.resolve(parsed.query, {
          signal: stopping,
          requestId: `watch-settle:${watch.id}`,
          call: { meter, background: true },
          ...(this.o.observed ? { observed: this.o.observed } : {}),
        });
      } catch (error) {
        this.o.logger.warn({ err: error, watch: watch.id }, 'a watch could not be settled; asked again later');
        await this.later(watch, at);
        continue;
      } finally {
        report.providerRequests += meter.requests;
      }
      // Not every provider could be asked: the flight may exist where we could not look; asked again later.
      if (resolution.kind !== 'answered') {
        await this.later(watch, at);
        continue;
      }
      const data = resolution.data;
      let reason: EndedReason = data.selected === null ? 'not_found' : 'settled';
      if (data.selected !== null && !data.selected.complete) {
        // Incomplete: asked again with a back-off, and at last ended as it stands.
        if (Number(watch.settle_checks ?? 0) + 1 < SETTLE_MAX_CHECKS) {
          await this.later(watch, at);
          continue;
        }
        reason = 'incomplete';
      }
      if (await this.end(watch, reason, data, this.o.clock.now())) {
        if (reason === 'settled') report.settled += 1;
        else if (reason === 'not_found') report.notFound += 1;
        else report.gaveUp += 1;
      }
    }
    return report;
  }

  /** The next ask of a watch whose record was not settled now: after the back-off of its checks. */
  private async later(watch: FlightWatchesTable, at: number): Promise<void> {
    const checks = Number(watch.settle_checks ?? 0) + 1;
    await this.o.db.kysely
      .updateTable('flight_watches')
      .set({ settle_at: at + settleBackoffMs(checks), settle_checks: checks })
      .where('id', '=', watch.id)
      .where('state', '=', 'active')
      .execute();
  }

  /** Watches whose flight a board showed landed or cancelled are due now (the board path's end of a flight). */
  private async dueByTheirEnd(at: number): Promise<void> {
    await this.o.db.kysely
      .updateTable('flight_watches')
      .set({ settle_at: at })
      .where('state', '=', 'active')
      .where('settle_at', 'is', null)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('board_event_watches as l')
            .select('l.event_id')
            .whereRef('l.watch_id', '=', 'flight_watches.id')
            .where('l.event_type', 'in', FINAL_EVENT_TYPES),
        ),
      )
      .execute();
  }

  /**
   * Active watches due by `at`, in id order after `after`: those whose settle_at has come (their
   * flight's end was seen, or their back-off is over), and those without one whose flight should be
   * over by its date.
   */
  private due(at: number, after: string): Promise<FlightWatchesTable[]> {
    return this.o.db.kysely
      .selectFrom('flight_watches')
      .selectAll()
      .where('state', '=', 'active')
      .where((eb) =>
        eb.or([
          eb.and([eb('settle_at', 'is not', null), eb('settle_at', '<=', at)]),
          eb.and([
            eb('settle_at', 'is', null),
            eb.or([
              eb.and([eb('date_basis', '=', 'utc'), eb('flight_date', '<=', dateOf(at - SETTLE_AFTER_MS))]),
              eb.and([
                eb('date_basis', '=', 'local'),
                eb('flight_date', '<=', dateOf(at - SETTLE_AFTER_MS - LOCAL_AHEAD_MS)),
              ]),
            ]),
          ]),
        ]),
      )
      .where('id', '>', after)
      .orderBy('id')
      .limit(SETTLE_PER_RUN)
      .execute();
  }

  /**
   * Queues the watch's `flight.settled` (one delivery per endpoint), lists it among the watch's events
   * and ends the watch, in one transaction: a worker killed before it commits leaves the watch active
   * and nothing queued; the event's id is the watch's, so writing it twice adds nothing. False when the
   * watch was no longer active (stopped meanwhile, or ended by another run).
   */
  private async end(
    watch: FlightWatchesTable,
    reason: EndedReason,
    data: FlightStatusData,
    at: number,
  ): Promise<boolean> {
    const eventId = settledEventId(watch.id);
    return this.o.db.kysely.transaction().execute(async (trx) => {
      const ended = await trx
        .updateTable('flight_watches')
        .set({ state: 'ended', ended_reason: reason, ended_at: at, record: JSON.stringify(data) })
        .where('id', '=', watch.id)
        .where('state', '=', 'active')
        .executeTakeFirst();
      if (Number(ended.numUpdatedRows) !== 1) return false;
      const endpoints = await trx
        .selectFrom('flight_watch_endpoints')
        .select('endpoint_id')
        .where('watch_id', '=', watch.id)
        .execute();
      const named = [{ id: watch.id, reference: watch.reference }];
      await queueWatchEvent(trx, {
        id: eventId,
        type: 'flight.settled',
        createdAt: at,
        data: settledData(data, reason, watch, this.o.baseUrl),
        to: endpoints.map((e) => ({ endpointId: e.endpoint_id, watches: named })),
      });
      await trx
        .insertInto('board_event_watches')
        .values({ event_id: eventId, watch_id: watch.id, event_type: 'flight.settled', created_at: at, position: LAST })
        .onConflict((oc) => oc.columns(['event_id', 'watch_id']).doNothing())
        .execute();
      return true;
    });
  }
}

/** The body's `data` (docs/watches.md, "flight.settled"): the lookup's verdict, its assessment, circumstances and evidence. */
export function settledData(data: FlightStatusData, reason: EndedReason, watch: FlightWatchesTable, baseUrl: string) {
  const evidence =
    data.selected === null
      ? null
      : `${baseUrl.replace(/\/+$/, '')}/api/v1/flights/evidence?${new URLSearchParams(
          queryFields({ ...watch, endpoints: [] }),
        ).toString()}`;
  return {
    reason,
    flightNumber: data.flightNumber,
    flightDate: data.flightDate,
    originIata: data.originIata,
    destinationIata: data.destinationIata,
    status: data.selected?.status ?? 'not_found',
    selected: data.selected,
    flightDelay: data.flightDelay,
    compensation: data.compensation ?? null,
    circumstances: data.circumstances ?? null,
    rationale: data.rationale ?? null,
    evidenceUrl: evidence,
  };
}
