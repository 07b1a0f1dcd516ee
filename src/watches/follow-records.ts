// What following found, read back (docs/watches.md, "Settled"): the settle job answers a followed
// flight's record from following's last answer, as it answers a board-followed one from the board
// poll's kept rows, with no provider request again.
import type { Database } from '../db/index.js';
import type { FlightLookup, ObservedFlights, ProviderFlight } from '../providers/index.js';
import { addDays, utcDate } from '../providers/zones.js';
import type { FollowState } from './follow-plan.js';

/**
 * The settled records following found (ObservedFlights, as the board poll's kept rows are): the
 * settle job answers a followed flight from its last answer, with no provider request again.
 */
export class FollowedRecords implements ObservedFlights {
  constructor(private readonly db: Database) {}

  /**
   * The lookup is by UTC date; a local-date watch's flight is kept under its local date, a day either
   * side, so the rows of the three dates are read and the one whose departure is on the UTC date asked
   * answers.
   */
  async find(lookup: FlightLookup): Promise<ProviderFlight | null> {
    const rows = await this.db.kysely
      .selectFrom('followed_flights')
      .select(['state', 'origin', 'destination', 'flight_date', 'date_basis'])
      .where('flight_number', '=', lookup.designator)
      .where('flight_date', 'in', [addDays(lookup.flightDate, -1), lookup.flightDate, addDays(lookup.flightDate, 1)])
      .execute();
    for (const row of rows) {
      if ((row.origin ?? null) !== (lookup.origin ?? null)) continue;
      if ((row.destination ?? null) !== (lookup.destination ?? null)) continue;
      const last = (JSON.parse(row.state) as FollowState).last;
      if (!last?.settled) continue;
      const departs = last.departure.scheduled;
      const utc = departs === null ? (row.date_basis === 'utc' ? row.flight_date : null) : utcDate(departs);
      if (utc === lookup.flightDate) return last;
    }
    return null;
  }
}
