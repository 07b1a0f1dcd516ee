// The kept board rows on SQLite (dialect.ts chooses them): statements prepared once, the reads a
// disrupted lookup makes several of (Kysely compiled and prepared each on every call, most of those
// reads' CPU), and the write one unit inside the group transaction (a Kysely statement would wait
// for the group to let the connection go).
import type { AirportDaysTable, SqliteDatabase } from '../db/index.js';
import type { KeptRow, ObservedDialect, ObservedWrite } from './observed-shapes.js';

export function sqliteObserved({ sqlite, group }: SqliteDatabase): ObservedDialect {
  const kept = sqlite.prepare<[string, number, number], { from_at: number; to_at: number }>(
    'SELECT from_at, to_at FROM kept_hours WHERE airport = ? AND to_at > ? AND from_at < ? ORDER BY from_at',
  );
  const around = sqlite.prepare<[string, number, number], KeptRow>(
    'SELECT board, airport, row FROM observed_flights WHERE airport = ? AND scheduled_at >= ? AND scheduled_at < ?',
  );
  const aircraft = sqlite.prepare<[string, number, number], KeptRow>(
    'SELECT board, airport, row FROM observed_flights WHERE registration = ? AND scheduled_at >= ? AND scheduled_at < ?',
  );
  const upsert = sqlite.prepare(
    `INSERT INTO observed_flights (board, airport, flight, scheduled_at, row, seen_at, registration) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (board, airport, flight, scheduled_at) DO UPDATE SET row = excluded.row, seen_at = excluded.seen_at, registration = excluded.registration`,
  );
  const record = sqlite.prepare(
    'INSERT INTO airport_days (airport, date, provider, rows, read_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (airport, date) DO NOTHING',
  );
  const unit = sqlite.transaction((values: ObservedWrite[], day: AirportDaysTable | null) => {
    for (const v of values) upsert.run(v.board, v.airport, v.flight, v.scheduled_at, v.row, v.seen_at, v.registration);
    if (day) record.run(day.airport, day.date, day.provider, day.rows, day.read_at);
  });
  return {
    reads: {
      keptHours: async (airport, from, to) => kept.all(airport, from, to),
      around: async (airport, from, to) => around.all(airport, from, to),
      aircraft: async (registration, from, to) => aircraft.all(registration, from, to),
    },
    write: async (values, day) => {
      await group.run(() => unit(values, day));
    },
  };
}
