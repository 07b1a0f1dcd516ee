// The database's own gauges, one kind per dialect: a PostgreSQL pool's connections, or the statements
// waiting for SQLite's next group transaction.
import { forDialect, type Database } from '../db/index.js';
import type { Metrics } from './metrics.js';

export function watchDatabase(metrics: Metrics, db: Database): void {
  forDialect(db, {
    postgres: ({ pool }) =>
      metrics.gauge(
        'flightstatus_db_pool_connections',
        'PostgreSQL connections of this process: open, idle, and requests waiting for one',
        ['state'],
        () => [
          { labels: { state: 'open' }, value: pool.totalCount },
          { labels: { state: 'idle' }, value: pool.idleCount },
          { labels: { state: 'waiting' }, value: pool.waitingCount },
        ],
      ),
    sqlite: ({ group }) =>
      metrics.gauge(
        'flightstatus_db_queued_statements',
        'SQLite: statements waiting for the next group transaction',
        [],
        () => [{ value: group.queued }],
      ),
  });
}
