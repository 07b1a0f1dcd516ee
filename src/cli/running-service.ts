// What the database commands of the CLI (migrate, accounts, keys, plans, invoices, sim) do before they touch the database:
// name the database they open (stderr), ask the running service which database and clock it uses
// (GET /api/admin/v1/service with FLIGHTSTATUS_ADMIN_TOKEN), refuse when the service's database is
// another one, and take "now" from the service's clock. See docs/operator.md, "The CLI and the service".
import { clockFor, ManualClock, systemClock, type Clock } from '../clock.js';
import { redactUrl, type Config } from '../config.js';
import type { Database } from '../db/index.js';

/** How long the CLI waits for the service to answer before taking it as not running. */
const SERVICE_TIMEOUT_MS = 5_000;

export interface ServiceReport {
  base: string;
  databaseId: string | null;
  database: string;
  clock: { now: number; mode: 'system' | 'manual' };
}

/** The service's address: --url, else http://HOST:PORT (null when PORT is 0: no fixed address to ask). */
export function serviceBase(config: Config, url: string | undefined): string | null {
  if (url !== undefined) return url.replace(/\/+$/, '');
  if (config.port === 0) return null;
  // A service listening on every address is reached on loopback.
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/**
 * The running service's report, or null when no service answers at `base` (not running). An answer
 * that is not the report (wrong or missing token, another program) is an error: the CLI cannot tell
 * which database and clock the service has, and the operator should fix the settings first.
 */
export async function askService(base: string, token: string | null): Promise<ServiceReport | null> {
  // For messages: a --url with credentials in it keeps them out of the terminal and logs.
  const shown = redactUrl(base);
  let response: Response;
  try {
    response = await fetch(`${base}/api/admin/v1/service`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(SERVICE_TIMEOUT_MS),
    });
  } catch {
    return null;
  }
  const body = (await response.json().catch(() => null)) as {
    success?: boolean;
    data?: {
      service?: string;
      database?: { id: string | null; description: string };
      clock?: { now: string; mode: 'system' | 'manual' };
    };
  } | null;
  const data = body?.data;
  if (response.ok && body?.success && data?.service === 'flightstatus' && data.database && data.clock) {
    return {
      base,
      databaseId: data.database.id,
      database: data.database.description,
      clock: { now: Date.parse(data.clock.now), mode: data.clock.mode },
    };
  }
  if (!token) {
    throw new Error(
      `a service answers at ${shown}, but FLIGHTSTATUS_ADMIN_TOKEN is not set, so its database and clock cannot be checked; set it as the service has it (or pass --url for another service)`,
    );
  }
  if (response.status === 401)
    throw new Error(
      `the service at ${shown} refused FLIGHTSTATUS_ADMIN_TOKEN; set it as the service has it (or pass --url for another service)`,
    );
  throw new Error(
    `${shown} answered ${response.status} to the operator API; is the Flight Status Service running there with FLIGHTSTATUS_ADMIN_TOKEN set? (or pass --url)`,
  );
}

/**
 * "Now" for a command: the running service's clock when one answers at `url` (or HOST:PORT), else
 * the configured one. On the system clock the service is asked only when the CLI has the operator
 * token (or --url); on the manual clock always, since its time lives in the service process.
 */
export async function commandClock(
  config: Config,
  url: string | undefined,
  say: (line: string) => void,
): Promise<{ clock: Clock; service: ServiceReport | null }> {
  const base = serviceBase(config, url);
  const ask = base !== null && (config.adminToken !== null || config.clock.kind === 'manual' || url !== undefined);
  const service = ask ? await askService(base, config.adminToken) : null;
  if (service)
    return { clock: service.clock.mode === 'manual' ? new ManualClock(service.clock.now) : systemClock, service };
  if (config.clock.kind === 'manual') {
    say(
      `no service answered${base ? ` at ${redactUrl(base)}` : ' (PORT is 0; pass --url)'}; "now" is where its manual clock would start: ` +
        (config.clock.start === null ? 'the current time' : 'FLIGHTSTATUS_CLOCK_START'),
    );
  }
  return { clock: clockFor(config.clock), service: null };
}

/**
 * Opens and migrates the CLI's database once it is known to be the running service's (when one
 * answers), with the clock the commands must use.
 */
export async function openForCommand(
  config: Config,
  url: string | undefined,
): Promise<{ db: Database; clock: Clock; applied: string[] }> {
  // Loaded here, not with the command table: help, version and usage errors never open a database.
  const { describeTarget, notCreatedYet, openDatabase, readDatabaseIdentity } = await import('../db/index.js');
  const { migrateToLatest } = await import('../db/migrate.js');
  const description = describeTarget(config.database);
  const say = (line: string) => process.stderr.write(`flightstatus: ${line}\n`);
  // The two ways a command lands on a database nobody meant: no DATABASE_URL (no ./.env here), and a
  // SQLite path that does not exist yet.
  const notes: string[] = [];
  if ((process.env.DATABASE_URL ?? '').trim() === '')
    notes.push('DATABASE_URL is not set here or in ./.env: the default');
  const fresh = notCreatedYet(config.database);
  if (fresh) notes.push('no such file yet: a new database');
  say(`using ${description}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`);

  const { clock, service } = await commandClock(config, url, say);

  const mismatch = () =>
    new Error(
      `the service at ${redactUrl(service!.base)} uses ${service!.database}, not ${description}; run this command with the service's ` +
        'DATABASE_URL (from the same ./.env or environment), or pass --url for the service that uses this database',
    );
  // Checked before opening, so a mistyped SQLite path is not created as an empty database.
  if (service && fresh) throw mismatch();
  const db = await openDatabase(config.database);
  try {
    if (service && (await readDatabaseIdentity(db)) !== service.databaseId) throw mismatch();
    return { db, clock, applied: await migrateToLatest(db) };
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
}
