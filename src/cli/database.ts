// The commands that work straight on the database (accounts, keys, plans, airports, invoices): the whole
// command line is checked first, then the database is opened as the running service's (see
// running-service.ts) and the parsed command runs with the services built on it.
import type { AirportAdditions } from '../airports/index.js';
import type { buildServices } from '../app.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Database } from '../db/index.js';
import { takeUrl } from './args.js';

/** What every command that opens the database does first; shown in their help. */
const DATABASE_NOTE = `Opens the database of DATABASE_URL (environment, then ./.env; default sqlite:./data/flightstatus.db)
and names it on stderr. When FLIGHTSTATUS_ADMIN_TOKEN is set (or the clock is manual) it first asks the
running service (http://HOST:PORT, or --url URL) and refuses if the service uses another database;
on the manual clock, "now" is the service's. Prints {success, data|message} as JSON on stdout.`;

/** The help of a command that opens the database: its own text, then what opening it does. */
export const withDatabaseNote = (text: string) => `${text}\n\n${DATABASE_NOTE}`;

type Services = ReturnType<typeof buildServices>;

/** What a parsed command runs with once the database is open; `clock` is the service's (see openForCommand). */
export interface ActionContext {
  db: Database;
  clock: Clock;
  accounts: Services['accounts'];
  metering: Services['metering'];
  users: Services['users'];
  plans: Services['plans'];
  /** The operator's additions to the airport catalogue (built when asked for: it loads the reference airports). */
  airports: () => AirportAdditions;
  config: Config;
  baseUrl: string;
}

/** A parsed command, run once the database is open. */
export type Action = (context: ActionContext) => Promise<number>;

/**
 * The run of a database command from its parser (`verb`, the rest → Action): the command line
 * (--url included) is checked before the database is opened, so a mistake opens nothing.
 */
export function databaseCommand(parseVerb: (verb: string | undefined, rest: string[]) => Action) {
  return async (config: Config, argv: string[]): Promise<number> => {
    const { url, rest: args } = takeUrl(argv);
    const [verb, ...rest] = args;
    const action = parseVerb(verb, rest);
    const [{ openForCommand }, { buildServices }, airportsModule, { endpointsSelecting }] = await Promise.all([
      import('./running-service.js'),
      import('../app.js'),
      import('../airports/index.js'),
      import('../webhooks/index.js'),
    ]);
    const { db, clock } = await openForCommand(config, url);
    try {
      const { accounts, metering, users, plans } = buildServices(db, clock, config.dashboard);
      return await action({
        db,
        clock,
        accounts,
        metering,
        users,
        plans,
        airports: () =>
          new airportsModule.AirportAdditions({
            db,
            clock,
            catalogue: airportsModule.loadCatalogue(),
            reference: airportsModule.loadReferenceAirports(),
            selectedBy: (iata) => endpointsSelecting(db, iata),
          }),
        config,
        baseUrl: config.publicUrl ?? `http://localhost:${config.port}`,
      });
    } finally {
      await db.close();
    }
  };
}
