// Following's writes (docs/watches.md, "Followed through the providers"): a followed flight's new
// state, stored over the version it was read at, with the events of the answer, their links to the
// flight's watches and, when its record is complete, its watches due to settle: all or nothing.
import type { BoardEventsTable, Database, FollowedFlightsTable } from '../db/index.js';
import { watchLinks } from '../boards/index.js';
import type { FollowState } from './follow-plan.js';

export interface FollowedWrite {
  state: FollowState;
  /** When it is asked next; null: never again. */
  nextAt: number | null;
  /** The requests this question spent (added to the flight's count). */
  requests: number;
  events: BoardEventsTable[];
  /** Watches whose flight's record is complete: due to settle now. */
  settleNow: string[];
  at: number;
  /** The flight's watches, linked to its events. */
  watches: string[];
}

/**
 * Stores the flight's new state over the version it was read at, with its events (and their links
 * to the watches) and, when its record is complete, its watches due to settle now: all or nothing.
 * A flight another worker moved on meanwhile is left as that worker wrote it (nothing stored); how
 * many events were stored.
 */
export function saveFollowed(db: Database, flight: FollowedFlightsTable, write: FollowedWrite): Promise<number> {
  const { state, nextAt, requests, events, settleNow, at, watches } = write;
  return db.kysely.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('followed_flights')
      .set({
        state: JSON.stringify(state),
        version: flight.version + 1,
        next_at: nextAt,
        requests: Number(flight.requests) + requests,
        updated_at: at,
      })
      .where('flight_key', '=', flight.flight_key)
      .where('version', '=', flight.version)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) return 0;
    let stored = 0;
    if (events.length > 0) {
      const inserted = await trx
        .insertInto('board_events')
        .values(events)
        .onConflict((oc) => oc.doNothing())
        .returning(['id', 'created_at'])
        .execute();
      stored = inserted.length;
      if (inserted.length > 0) {
        await trx
          .insertInto('fan_out_queue')
          .values(inserted.map((e) => ({ event_id: e.id, created_at: Number(e.created_at) })))
          .execute();
        const kept = new Set(inserted.map((e) => e.id));
        const links = watchLinks(
          events.filter((e) => kept.has(e.id)),
          watches,
        );
        if (links.length > 0)
          await trx
            .insertInto('board_event_watches')
            .values(links)
            .onConflict((oc) => oc.columns(['event_id', 'watch_id']).doNothing())
            .execute();
      }
    }
    if (settleNow.length > 0)
      await trx
        .updateTable('flight_watches')
        .set({ settle_at: at })
        .where('id', 'in', settleNow)
        .where('state', '=', 'active')
        .where((eb) => eb.or([eb('settle_at', 'is', null), eb('settle_at', '>', at)]))
        .execute();
    return stored;
  });
}
