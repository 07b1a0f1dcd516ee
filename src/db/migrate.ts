// Migrations live in code (so they ship inside dist/) and run the same on both dialects; the few
// dialect differences (auto-increment ids) are decided inside each migration.
import { Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { Database } from './index.js';
import { foundation } from './migrations/0001_foundation.js';
import { flightRecords } from './migrations/0002_flight_records.js';
import { boards } from './migrations/0003_boards.js';
import { webhooks } from './migrations/0004_webhooks.js';
import { idempotencyKeys } from './migrations/0005_idempotency.js';
import { rateLimitWindows } from './migrations/0006_rate_limits.js';
import { databaseIdentity } from './migrations/0007_database_identity.js';
import { deliveryQueue } from './migrations/0008_delivery_queue.js';
import { users } from './migrations/0009_users.js';
import { plans } from './migrations/0010_plans.js';
import { billing } from './migrations/0011_billing.js';
import { scaleOut } from './migrations/0012_scale_out.js';
import { fanOutQueue } from './migrations/0013_fan_out_queue.js';
import { endpointBackoff } from './migrations/0014_endpoint_backoff.js';
import { boardFigures } from './migrations/0015_board_figures.js';
import { batches } from './migrations/0016_batches.js';
import { observedFlights } from './migrations/0017_observed_flights.js';
import { mail } from './migrations/0018_mail.js';
import { accountRecovery } from './migrations/0019_account_recovery.js';
import { invoicing } from './migrations/0020_invoicing.js';
import { invitationsBillingEmail } from './migrations/0021_invitations_billing_email.js';
import { batchCharges } from './migrations/0022_batch_charges.js';
import { airportDays } from './migrations/0023_airport_days.js';
import { observedRegistration } from './migrations/0024_observed_registration.js';
import { keptHours } from './migrations/0025_kept_hours.js';
import { secretOverlap } from './migrations/0026_secret_overlap.js';
import { airportAdditions } from './migrations/0027_airport_additions.js';
import { watches } from './migrations/0028_watches.js';
import { watchEvents } from './migrations/0029_watch_events.js';
import { followedFlights } from './migrations/0030_followed_flights.js';
import { watchRecord } from './migrations/0031_watch_record.js';

export type DialectKind = Database['kind'];
export type DialectMigration = (dialect: DialectKind) => Migration;

/** In order; names sort lexically, and a shipped name never changes. */
const MIGRATIONS: Record<string, DialectMigration> = {
  '0001_foundation': foundation,
  '0002_flight_records': flightRecords,
  '0003_boards': boards,
  '0004_webhooks': webhooks,
  '0005_idempotency': idempotencyKeys,
  '0006_rate_limits': rateLimitWindows,
  '0007_database_identity': databaseIdentity,
  '0008_delivery_queue': deliveryQueue,
  '0009_users': users,
  '0010_plans': plans,
  '0011_billing': billing,
  '0012_scale_out': scaleOut,
  '0013_fan_out_queue': fanOutQueue,
  '0014_endpoint_backoff': endpointBackoff,
  '0015_board_figures': boardFigures,
  '0016_batches': batches,
  '0017_observed_flights': observedFlights,
  '0018_mail': mail,
  '0019_account_recovery': accountRecovery,
  '0020_invoicing': invoicing,
  '0021_invitations_billing_email': invitationsBillingEmail,
  '0022_batch_charges': batchCharges,
  '0023_airport_days': airportDays,
  '0024_observed_registration': observedRegistration,
  '0025_kept_hours': keptHours,
  '0026_secret_overlap': secretOverlap,
  '0027_airport_additions': airportAdditions,
  '0028_watches': watches,
  '0029_watch_events': watchEvents,
  '0030_followed_flights': followedFlights,
  '0031_watch_record': watchRecord,
};

export const MIGRATION_NAMES = Object.keys(MIGRATIONS);

class CodeMigrationProvider implements MigrationProvider {
  constructor(private readonly dialect: DialectKind) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return Object.fromEntries(Object.entries(MIGRATIONS).map(([name, make]) => [name, make(this.dialect)]));
  }
}

export class MigrationError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'MigrationError';
  }
}

/** Applies every pending migration; safe when several processes start at once. */
export function migrateToLatest(database: Database): Promise<string[]> {
  return migrate(database, (migrator) => migrator.migrateToLatest());
}

/** Applies the pending migrations up to `name` (tests of an upgrade from an older schema). */
export function migrateTo(database: Database, name: string): Promise<string[]> {
  if (!MIGRATION_NAMES.includes(name)) throw new MigrationError(`No migration named ${name}`);
  return migrate(database, (migrator) => migrator.migrateTo(name));
}

async function migrate(
  database: Database,
  run: (migrator: Migrator) => Promise<MigrationResultSet>,
): Promise<string[]> {
  const migrator = new Migrator({ db: database.kysely, provider: new CodeMigrationProvider(database.kind) });
  const { error, results } = await run(migrator);
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    const reason = error instanceof Error ? error.message : String(error);
    throw new MigrationError(`Migration ${failed} failed: ${reason}`, error);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
