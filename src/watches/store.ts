// The SQL of watches: the statements that write them (compiled, to run in the transaction that takes
// their credits: metering/bulk.ts), the limit's count, and the reads. Every read is scoped to one
// account: another account's watch does not exist here.
import type { CompiledQuery } from 'kysely';
import type { Database, FlightWatchesTable } from '../db/index.js';

export type WatchRecord = FlightWatchesTable & { endpoints: string[] };

export interface ListFilter {
  state?: FlightWatchesTable['state'];
  reference?: string;
  /** Inclusive bounds on flight_date (YYYY-MM-DD); an exact date is both. */
  from?: string;
  to?: string;
}

/**
 * Rows per INSERT statement: 500 watches of 13 columns stay far below SQLite's 32,766 and
 * PostgreSQL's 65,535 parameters, and 10,000 watches are 20 statements.
 */
const INSERT_CHUNK = 500;
/** Keys per IN list when looking for watches that already exist. */
const KEY_CHUNK = 500;

export class WatchStore {
  constructor(private readonly db: Database) {}

  private get k() {
    return this.db.kysely;
  }

  /** The statements that write `rows` and the endpoints each sends to. */
  inserts(rows: WatchRecord[]): CompiledQuery[] {
    const out: CompiledQuery[] = [];
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      const chunk = rows.slice(i, i + INSERT_CHUNK);
      out.push(
        this.k
          .insertInto('flight_watches')
          .values(chunk.map(({ endpoints: _, ...row }) => row))
          .compile(),
      );
    }
    const links = rows.flatMap((r) => r.endpoints.map((endpoint) => ({ watch_id: r.id, endpoint_id: endpoint })));
    for (let i = 0; i < links.length; i += INSERT_CHUNK) {
      out.push(
        this.k
          .insertInto('flight_watch_endpoints')
          .values(links.slice(i, i + INSERT_CHUNK))
          .compile(),
      );
    }
    return out;
  }

  /** The account's active watches, counted (a row `{active}`). */
  countActive(accountId: string): CompiledQuery {
    return this.k
      .selectFrom('flight_watches')
      .select((eb) => eb.fn.countAll<number>().as('active'))
      .where('account_id', '=', accountId)
      .where('state', '=', 'active')
      .compile();
  }

  async activeCount(accountId: string): Promise<number> {
    const row = await this.k.executeQuery<{ active: number | string }>(this.countActive(accountId));
    return Number(row.rows[0]?.active ?? 0);
  }

  /** The account's active watches among `keys`, by key. */
  async activeByKey(accountId: string, keys: string[]): Promise<Map<string, WatchRecord>> {
    const found: FlightWatchesTable[] = [];
    for (let i = 0; i < keys.length; i += KEY_CHUNK) {
      found.push(
        ...(await this.k
          .selectFrom('flight_watches')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('state', '=', 'active')
          .where('watch_key', 'in', keys.slice(i, i + KEY_CHUNK))
          .execute()),
      );
    }
    const records = await this.withEndpoints(found);
    return new Map(records.map((r) => [r.watch_key, r]));
  }

  async find(accountId: string, id: string): Promise<WatchRecord | undefined> {
    const row = await this.k
      .selectFrom('flight_watches')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row ? (await this.withEndpoints([row]))[0] : undefined;
  }

  /** Newest first (ties in id order, descending), after `before` when given; one more than `limit` to tell if there are more. */
  async list(accountId: string, filter: ListFilter, limit: number, before?: WatchRecord): Promise<WatchRecord[]> {
    let query = this.k.selectFrom('flight_watches').selectAll().where('account_id', '=', accountId);
    if (filter.state) query = query.where('state', '=', filter.state);
    if (filter.reference !== undefined) query = query.where('reference', '=', filter.reference);
    if (filter.from) query = query.where('flight_date', '>=', filter.from);
    if (filter.to) query = query.where('flight_date', '<=', filter.to);
    if (before) {
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '<', before.created_at),
          eb.and([eb('created_at', '=', before.created_at), eb('id', '<', before.id)]),
        ]),
      );
    }
    const rows = await query
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
    return this.withEndpoints(rows);
  }

  /** Stops an active watch; false when it was not active (or is not the account's). */
  async stop(accountId: string, id: string, at: number): Promise<boolean> {
    const result = await this.k
      .updateTable('flight_watches')
      .set({ state: 'stopped', ended_at: at })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('state', '=', 'active')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Stops the account's active watches whose only endpoint is `endpointId` (ended_reason
   * `endpoint_deleted`), run in the endpoint's removal before it: they would send to no one.
   */
  orphanStops(accountId: string, endpointId: string, at: number): CompiledQuery[] {
    return [
      this.k
        .updateTable('flight_watches')
        .set({ state: 'stopped', ended_at: at, ended_reason: 'endpoint_deleted' })
        .where('account_id', '=', accountId)
        .where('state', '=', 'active')
        .where(
          'id',
          'in',
          this.k.selectFrom('flight_watch_endpoints').select('watch_id').where('endpoint_id', '=', endpointId),
        )
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('flight_watch_endpoints as other')
                .select('other.watch_id')
                .whereRef('other.watch_id', '=', 'flight_watches.id')
                .where('other.endpoint_id', '<>', endpointId),
            ),
          ),
        )
        .compile(),
    ];
  }

  private async withEndpoints(rows: FlightWatchesTable[]): Promise<WatchRecord[]> {
    const byWatch = new Map<string, string[]>(rows.map((r) => [r.id, []]));
    const ids = [...byWatch.keys()];
    for (let i = 0; i < ids.length; i += KEY_CHUNK) {
      const links = await this.k
        .selectFrom('flight_watch_endpoints')
        .select(['watch_id', 'endpoint_id'])
        .where('watch_id', 'in', ids.slice(i, i + KEY_CHUNK))
        .execute();
      for (const link of links) byWatch.get(link.watch_id)!.push(link.endpoint_id);
    }
    // Sorted here, as the ids were when written: a database's collation may order mixed case otherwise.
    return rows.map((r) => ({ ...r, created_at: Number(r.created_at), endpoints: byWatch.get(r.id)!.sort() }));
  }
}

/** A write refused by a unique index (an active watch of the same key written at the same moment). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
