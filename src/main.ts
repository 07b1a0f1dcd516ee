// The `flightstatus` command. `serve` runs the service (what `npm start` runs); the other commands
// manage accounts and keys straight on the database, so they work while the service runs, on
// SQLite and on PostgreSQL alike. Every command but `serve` prints JSON: {success, data|message}.
import { buildApp, buildServices } from './app.js';
import { ConfigError, loadConfig, loadDotEnv, type Config } from './config.js';
import { DAY, systemClock } from './clock.js';
import { DatabaseUnavailableError, openDatabase } from './db/index.js';
import { migrateToLatest, MigrationError } from './db/migrate.js';
import { prepareSecrets, SecretKeyError } from './webhooks/index.js';
import { createLogger } from './logger.js';
import { usageByDay } from './metering/index.js';
import { integer, parse, print, required, UsageError } from './cli.js';
import { clockCommand } from './admin/clock-cli.js';
import { simCommand } from './sim/cli.js';

const USAGE = `Usage: flightstatus <command>

  serve                               run the service (npm start)
  migrate                             apply pending database migrations
  accounts create --slug SLUG [--name NAME] [--included N] [--overage] [--unlimited]
  accounts get ID|SLUG
  accounts list
  accounts set ID|SLUG [--disabled|--enabled] [--status active|canceled|past_due|none]
                       [--included N] [--overage|--no-overage] [--unlimited|--limited]
  accounts usage ID|SLUG [--days N]   metered requests per UTC day (default: last 30 days)
  keys create --account ID|SLUG --name NAME
  keys disable KEY_ID
  keys enable KEY_ID
  clock [show]                        the running service's clock and periodic jobs
  clock advance DURATION              move a manual clock forward (90s, 30m, 2h, 1d), running due jobs
  clock set TIME                      move a manual clock to an ISO 8601 time
  sim flights --date DATE [--airport IATA] [--status delayed|cancelled|diverted|on_time]
              [--operation passenger|cargo|military|private] [--table]
                                      the simulated world's true outcomes (DATE may be today or yesterday)
  sim calibrate [--from DATE] [--days N]
                                      the simulated delay statistics beside the published figures

Configuration comes from the environment (and ./.env): DATABASE_URL, PORT, HOST,
FLIGHTSTATUS_ADMIN_TOKEN, FLIGHTSTATUS_SIM_SEED, LOG_LEVEL... See .env.example.`;

/** How long in-flight requests may take to finish after SIGTERM before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 25_000;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 1 : 0;
  }
  loadDotEnv();
  const config = loadConfig();
  switch (command) {
    case 'serve':
      return serve(config);
    case 'migrate':
      return migrate(config);
    case 'accounts':
    case 'keys':
      return manage(config, command, rest);
    case 'clock':
      return clockCommand(config, rest);
    case 'sim':
      return simCommand(config, rest);
    default:
      throw new UsageError(`Unknown command "${command}"`);
  }
}

async function serve(config: Config): Promise<number> {
  const app = await buildApp({ config });
  const { logger } = app;
  try {
    await app.http.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE') throw new Error(`Port ${config.port} on ${config.host} is already in use; set PORT to another one`);
    if (code === 'EADDRNOTAVAIL') throw new Error(`HOST ${config.host} is not an address of this machine`);
    throw error;
  }
  const address = app.http.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url: base, database: app.db.description, admin: config.adminToken !== null }, 'flight status service started');
  process.stderr.write(banner(base, app.db.description, config));

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    app.close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return new Promise<number>(() => {});
}

function banner(base: string, database: string, config: Config): string {
  const lines = [
    '',
    `Flight Status Service is listening on ${base}`,
    `  database   ${database}`,
    `  health     curl ${base}/api/health`,
    `  API docs   ${base}/docs`,
    '',
    '  Create a first account and key (in another shell, in this folder):',
    '    npx flightstatus accounts create --slug demo --included 1000',
    '    npx flightstatus keys create --account demo --name first',
    `  then: curl -H "Authorization: Bearer <key>" ${base}/api/v1/account`,
    config.adminToken ? `  Operator API: ${base}/api/admin/v1 (Bearer FLIGHTSTATUS_ADMIN_TOKEN)` : '  Operator API: off (set FLIGHTSTATUS_ADMIN_TOKEN to enable it)',
    '',
  ];
  return `${lines.join('\n')}\n`;
}

async function migrate(config: Config): Promise<number> {
  const db = await openDatabase(config.database);
  try {
    const applied = await migrateToLatest(db);
    // As the service does at start, after migrations: the same key (file), every secret sealed.
    const { choice, sealed } = await prepareSecrets(db, config.database, config.webhooks.secretKey);
    return print({ kind: 'ok', value: { database: db.description, applied, webhookSecretKey: choice.file ?? choice.source, sealedSecrets: sealed } });
  } finally {
    await db.close();
  }
}

async function manage(config: Config, noun: 'accounts' | 'keys', argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  const db = await openDatabase(config.database, { migrate: true });
  try {
    const { accounts } = buildServices(db, systemClock);
    if (noun === 'keys') {
      if (verb === 'create') {
        const { values } = parse(rest, { account: { type: 'string' }, name: { type: 'string' } });
        return print(await accounts.createKey(required(values.account, '--account'), required(values.name, '--name')));
      }
      if (verb === 'disable' || verb === 'enable') {
        const { positionals } = parse(rest, {}, 1);
        return print(await accounts.setKeyDisabled(positionals[0]!, verb === 'disable'));
      }
      throw new UsageError(`Unknown keys command "${verb ?? ''}"`);
    }
    switch (verb) {
      case 'create': {
        const { values } = parse(rest, {
          slug: { type: 'string' },
          name: { type: 'string' },
          included: { type: 'string' },
          overage: { type: 'boolean' },
          unlimited: { type: 'boolean' },
        });
        const included = values.included === undefined ? undefined : integer(values.included, '--included');
        if (values.overage && included === undefined) throw new UsageError('--overage needs --included N');
        return print(
          await accounts.createAccount({
            slug: required(values.slug, '--slug'),
            name: values.name,
            unlimited: values.unlimited ?? false,
            plan: included === undefined ? undefined : { included, overage: values.overage ?? false },
          }),
        );
      }
      case 'get': {
        const { positionals } = parse(rest, {}, 1);
        return print(await accounts.describe(positionals[0]!));
      }
      case 'list': {
        parse(rest, {}, 0);
        const rows = await accounts.listAccounts();
        return print({
          kind: 'ok',
          value: { accounts: rows.map((r) => ({ id: r.id, slug: r.slug, name: r.name, disabled: r.disabled === 1 })) },
        });
      }
      case 'set':
        return print(await setAccount(accounts, rest));
      case 'usage': {
        const { values, positionals } = parse(rest, { days: { type: 'string' } }, 1);
        const days = values.days === undefined ? 30 : integer(values.days, '--days');
        if (days < 1 || days > 366) throw new UsageError('--days must be from 1 to 366');
        const account = await accounts.describe(positionals[0]!);
        if (account.kind !== 'ok') return print(account);
        const to = Math.floor(systemClock.now() / DAY) * DAY + DAY;
        const rows = await usageByDay(db, account.value.id, to - days * DAY, to);
        return print({ kind: 'ok', value: { accountId: account.value.id, days: rows } });
      }
      default:
        throw new UsageError(`Unknown accounts command "${verb ?? ''}"`);
    }
  } finally {
    await db.close();
  }
}

async function setAccount(accounts: ReturnType<typeof buildServices>['accounts'], argv: string[]) {
  const { values, positionals } = parse(
    argv,
    {
      disabled: { type: 'boolean' },
      enabled: { type: 'boolean' },
      status: { type: 'string' },
      included: { type: 'string' },
      overage: { type: 'boolean' },
      'no-overage': { type: 'boolean' },
      unlimited: { type: 'boolean' },
      limited: { type: 'boolean' },
    },
    1,
  );
  const exclusive = (a: boolean | undefined, b: boolean | undefined, names: string): boolean | undefined => {
    if (a && b) throw new UsageError(`${names} cannot be given together`);
    return a ? true : b ? false : undefined;
  };
  const status = values.status;
  if (status !== undefined && !['active', 'canceled', 'past_due', 'none'].includes(status)) {
    throw new UsageError('--status must be one of active, canceled, past_due, none');
  }
  const overage = exclusive(values.overage, values['no-overage'], '--overage and --no-overage');
  let plan: { included: number; overage?: boolean } | undefined;
  if (values.included !== undefined) {
    // Without --overage/--no-overage the account keeps its overage setting.
    plan = { included: integer(values.included, '--included'), overage };
  } else if (overage !== undefined) {
    const current = await accounts.describe(positionals[0]!);
    if (current.kind !== 'ok') return current;
    if (!current.value.subscription.plan) throw new UsageError('--overage needs --included N on an account without a plan');
    plan = { included: current.value.subscription.plan.included, overage };
  }
  const patch = {
    disabled: exclusive(values.disabled, values.enabled, '--disabled and --enabled'),
    unlimited: exclusive(values.unlimited, values.limited, '--unlimited and --limited'),
    subscriptionStatus: status as 'active' | 'canceled' | 'past_due' | 'none' | undefined,
    plan,
  };
  if (Object.values(patch).every((v) => v === undefined)) throw new UsageError('accounts set needs at least one change');
  return accounts.updateAccount(positionals[0]!, patch);
}

/** Exits once stdout and stderr are flushed: a pipe takes 64 KiB at a time, and exiting earlier cuts long output. */
function exitAfterFlush(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

main(process.argv.slice(2)).then(
  (code) => exitAfterFlush(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`flightstatus: ${error.message}\n\n${USAGE}\n`);
      return exitAfterFlush(2);
    }
    const known =
      error instanceof ConfigError || error instanceof DatabaseUnavailableError || error instanceof MigrationError || error instanceof SecretKeyError;
    const message = error instanceof Error ? error.message : String(error);
    // Start-up failures are the operator's to fix: say what, without a stack trace.
    createLogger('error').fatal({ err: known ? undefined : error }, message);
    process.stderr.write(`flightstatus: ${message}\n`);
    exitAfterFlush(1);
  },
);
