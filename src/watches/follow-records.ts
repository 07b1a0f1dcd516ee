// What following found, read back (docs/watches.md, "Settled"): the settle job answers a followed
// flight's record from following's last answer, as it answers a board-followed one from the board
// poll's kept rows, with no provider request again.
import type { Database } from '../db/index.js';
import type { FlightLookup, ObservedFlights, ProviderFlight } from '../providers/index.js';
import type { FollowState } from './follow-plan.js';

/**
 * The settled records following found (ObservedFlights, as the board poll's kept rows are): the
 * settle job answers a followed flight from its last answer, with no provider request again.
 */
export class FollowedRecords implements ObservedFlights {
  constructor(private readonly db: Database) {}

  async find(lookup: FlightLookup): Promise<ProviderFlight | null> {
    const rows = await this.db.kysely
      .selectFrom('followed_flights')
      .select(['state', 'origin', 'destination'])
      .where('flight_number', '=', lookup.designator)
      .where('flight_date', '=', lookup.flightDate)
      .execute();
    for (const row of rows) {
      if ((row.origin ?? null) !== (lookup.origin ?? null)) continue;
      if ((row.destination ?? null) !== (lookup.destination ?? null)) continue;
      const last = (JSON.parse(row.state) as FollowState).last;
      if (last?.settled) return last;
    }
    return null;
  }
}
