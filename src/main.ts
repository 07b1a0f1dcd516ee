// The `flightstatus` command. `serve` runs the service (what `npm start` runs); the other commands
// manage accounts and keys straight on the database, so they work while the service runs, on
// SQLite and on PostgreSQL alike. Every command but `serve` prints JSON: {success, data|message}.
// `--help`/`-h` anywhere (or `help COMMAND`) prints that command's help and does nothing else; usage
// errors are one line on stderr and exit 2; other failures one line on stderr and exit 1.
// Only what help, version and usage errors need is imported up front (they answer in a fraction of
// the time); each command loads its own modules.
import type { buildServices } from './app.js';
import { loadConfig, loadDotEnv, parseRole, ROLES, type Config } from './config.js';
import { DAY, type Clock } from './clock.js';
import { parseMonth } from './billing/calendar.js';
import type { Database } from './db/index.js';
import { integer, parse, print, required, takeUrl, UsageError } from './cli.js';
import { helpText, helpTopic } from './cli-help.js';
import { VERSION } from './version.js';

/** How long in-flight requests may take to finish after SIGTERM before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 25_000;

/** The arguments before `--`, where options are looked for. */
const optionPart = (argv: string[]) => (argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv);
/** The leading words of a command line (`accounts create`), up to its first option. */
const leadingWords = (argv: string[]) => {
  const end = argv.findIndex((a) => a.startsWith('-'));
  return end === -1 ? argv : argv.slice(0, end);
};

/** The help a command line asks for (`help accounts`, `accounts create --help`, `-h`), or null. */
function helpRequest(argv: string[]): string | null {
  const asked = optionPart(argv).some((a) => a === '--help' || a === '-h');
  let words = leadingWords(argv);
  if (argv[0] === 'help') {
    words = argv.slice(1).filter((a) => !a.startsWith('-'));
    if (words.length === 0 && asked) words = ['help'];
  } else if (!asked) {
    return null;
  }
  const found = helpTopic(words.slice(0, 2));
  if ('error' in found) throw new UsageError(found.error);
  return found.topic;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('no command given');
  if (command === '--version' || command === '-V') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  // Before the configuration is read: help works with a broken .env and opens nothing.
  const topic = helpRequest(argv);
  if (topic !== null) {
    process.stdout.write(`${helpText(topic)}\n`);
    return 0;
  }
  if (!['serve', 'migrate', 'accounts', 'keys', 'plans', 'invoices', 'clock', 'sim', 'providers'].includes(command)) throw new UsageError(`unknown command "${command}"`);
  // The same settings as the service: ./.env and the environment, the environment winning.
  loadDotEnv();
  const config = loadConfig();
  switch (command) {
    case 'serve': {
      const { values } = parse(rest, { role: { type: 'string' } }, 0);
      if (values.role === undefined) return serve(config);
      const role = parseRole(values.role);
      if (role === null) throw new UsageError(`--role must be one of ${ROLES.join(', ')} (got "${values.role.slice(0, 40)}")`);
      return serve({ ...config, role });
    }
    case 'migrate': {
      const { url, rest: args } = takeUrl(rest);
      parse(args, {}, 0);
      return migrate(config, url);
    }
    case 'accounts':
    case 'keys':
    case 'plans':
    case 'invoices': {
      const { url, rest: args } = takeUrl(rest);
      return manage(config, command, args, url);
    }
    case 'clock':
      return (await import('./admin/clock-cli.js')).clockCommand(config, rest);
    case 'sim':
      return (await import('./admin/sim-cli.js')).simCommand(config, rest);
    case 'providers':
      return (await import('./providers/cli.js')).providersCommand(config, rest);
    default:
      throw new UsageError(`Unknown command "${command}"`);
  }
}

async function serve(config: Config): Promise<number> {
  const { buildApp } = await import('./app.js');
  const app = await buildApp({ config });
  const { logger } = app;
  try {
    await app.http.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE') throw new Error(`Port ${config.port} on ${config.host} is already in use; set PORT to another one`);
    if (code === 'EADDRNOTAVAIL') throw new Error(`HOST ${config.host} is not an address of this machine`);
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw new Error(`HOST ${config.host} is not a name this machine can resolve`);
    throw error;
  }
  const address = app.http.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url: base, database: app.db.description, admin: config.adminToken !== null, role: config.role }, 'flight status service started');
  process.stderr.write(config.role === 'worker' ? workerBanner(base, app.db.description) : banner(base, app.db.description, config));

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

/**
 * Where a person opens the dashboard: the public URL when there is one, else this host, with a
 * loopback address named `localhost` (browsers keep the dashboard's Secure cookie there over http).
 */
function dashboardUrl(base: string, config: Config): string {
  if (config.publicUrl) return `${config.publicUrl}/dashboard`;
  return `${base.replace(/^http:\/\/(127\.0\.0\.1|\[::1\])(?=[:/]|$)/, 'http://localhost')}/dashboard`;
}

/** A worker answers only probes, metrics and the operator's clock: say so, and what it runs. */
function workerBanner(base: string, database: string): string {
  return [
    '',
    `Flight Status Service worker is listening on ${base} (board poll, webhook deliveries, invoicing, pruning)`,
    `  database   ${database}`,
    `  health     curl ${base}/api/health   ready: ${base}/api/ready`,
    '',
    '',
  ].join('\n');
}

function banner(base: string, database: string, config: Config): string {
  const lines = [
    '',
    `Flight Status Service is listening on ${base}${config.role === 'api' ? ' (role api: the periodic jobs run in a worker process)' : ''}`,
    `  database   ${database}`,
    `  health     curl ${base}/api/health`,
    `  API docs   ${base}/docs`,
    `  dashboard  ${dashboardUrl(base, config)}   (sign up there, create a key, manage webhooks)`,
    '',
    '  Or create a first account and key from the command line (in another shell, in this folder):',
    '    npx flightstatus accounts create --slug demo --included 1000',
    '    npx flightstatus keys create --account demo --name first',
    `  then: curl -H "Authorization: Bearer <key>" ${base}/api/v1/account`,
    config.adminToken ? `  Operator API: ${base}/api/admin/v1 (Bearer FLIGHTSTATUS_ADMIN_TOKEN)` : '  Operator API: off (set FLIGHTSTATUS_ADMIN_TOKEN to enable it)',
    '',
  ];
  return `${lines.join('\n')}\n`;
}

async function migrate(config: Config, url: string | undefined): Promise<number> {
  const { openForCommand } = await import('./cli-service.js');
  const { db, applied } = await openForCommand(config, url);
  try {
    // As the service does at start, after migrations: the same key (file), every secret sealed.
    const { prepareSecrets } = await import('./webhooks/index.js');
    const { choice, sealed } = await prepareSecrets(db, config.database, config.webhooks.secretKey);
    return print({ kind: 'ok', value: { database: db.description, applied, webhookSecretKey: choice.file ?? choice.source, sealedSecrets: sealed } });
  } finally {
    await db.close();
  }
}

async function manage(config: Config, noun: 'accounts' | 'keys' | 'plans' | 'invoices', argv: string[], url: string | undefined): Promise<number> {
  const [verb, ...rest] = argv;
  // The whole command line is checked before the database is opened: a mistake opens nothing.
  const action =
    noun === 'keys' ? keysCommand(verb, rest) : noun === 'plans' ? plansCommand(verb, rest) : noun === 'invoices' ? invoicesCommand(verb, rest) : accountsCommand(verb, rest);
  const [{ openForCommand }, { buildServices }] = await Promise.all([import('./cli-service.js'), import('./app.js')]);
  const { db, clock } = await openForCommand(config, url);
  try {
    const { accounts, users, plans } = buildServices(db, clock, config.dashboard);
    return await action({ db, clock, accounts, users, plans, config, baseUrl: config.publicUrl ?? `http://localhost:${config.port}` });
  } finally {
    await db.close();
  }
}

/** A parsed command, run once the database is open; `clock` is the service's (see openForCommand). */
type Services = ReturnType<typeof buildServices>;
type Action = (context: {
  db: Database;
  clock: Clock;
  accounts: Services['accounts'];
  users: Services['users'];
  plans: Services['plans'];
  config: Config;
  baseUrl: string;
}) => Promise<number>;

function keysCommand(verb: string | undefined, rest: string[]): Action {
  if (verb === 'create') {
    const { values } = parse(rest, { account: { type: 'string' }, name: { type: 'string' } });
    const account = required(values.account, '--account');
    const name = required(values.name, '--name');
    return async ({ accounts }) => print(await accounts.createKey(account, name));
  }
  if (verb === 'disable' || verb === 'enable') {
    const { positionals } = parse(rest, {}, 1);
    return async ({ accounts }) => print(await accounts.setKeyDisabled(positionals[0]!, verb === 'disable'));
  }
  throw new UsageError(verb === undefined ? 'keys needs a command: create, disable or enable' : `unknown keys command "${verb}"`);
}

/** The plan catalogue, imported when a plans command runs (help and usage errors stay light). */
async function plansOf(db: Database, clock: Clock) {
  const { PlansService } = await import('./billing/index.js');
  return new PlansService(db, clock);
}

function plansCommand(verb: string | undefined, rest: string[]): Action {
  switch (verb) {
    case 'create': {
      const { values } = parse(rest, {
        id: { type: 'string' },
        name: { type: 'string' },
        currency: { type: 'string' },
        fee: { type: 'string' },
        included: { type: 'string' },
        overage: { type: 'boolean' },
        'overage-price': { type: 'string' },
      });
      if (values['overage-price'] !== undefined && !values.overage) throw new UsageError('--overage-price needs --overage');
      const input = {
        id: required(values.id, '--id'),
        name: values.name ?? required(values.id, '--id'),
        currency: required(values.currency, '--currency'),
        monthlyFee: required(values.fee, '--fee'),
        included: integer(required(values.included, '--included'), '--included'),
        overage: values.overage ?? false,
        overagePrice: values['overage-price'],
      };
      return async ({ db, clock }) => print(await (await plansOf(db, clock)).create(input));
    }
    case 'list':
      parse(rest, {}, 0);
      return async ({ db, clock }) => print({ kind: 'ok', value: { plans: await (await plansOf(db, clock)).list() } });
    case 'get': {
      const { positionals } = parse(rest, {}, 1);
      return async ({ db, clock }) => print(await (await plansOf(db, clock)).get(positionals[0]!));
    }
    default:
      throw new UsageError(verb === undefined ? 'plans needs a command: create, list or get' : `unknown plans command "${verb}"`);
  }
}

/**
 * Invoices (docs/billing.md), imported when an invoices command runs. The CLI never charges: it
 * writes and opens invoices, and the running service's job charges what is due.
 */
async function billingOf(context: Parameters<Action>[0]) {
  const { BillingService, ManualGateway } = await import('./billing/index.js');
  const { createLogger } = await import('./logger.js');
  const { db, clock, accounts, plans, config } = context;
  return new BillingService({
    db,
    clock,
    accounts,
    plans,
    gateway: new ManualGateway(),
    logger: createLogger('silent'),
    options: { graceMs: config.billing.graceMs, retryDelaysMs: config.billing.retryDelaysMs },
  });
}

const INVOICE_STATES = ['draft', 'open', 'paid', 'uncollectible', 'void'] as const;

function invoicesCommand(verb: string | undefined, rest: string[]): Action {
  switch (verb) {
    case 'list': {
      const { values } = parse(rest, { account: { type: 'string' }, state: { type: 'string' }, kind: { type: 'string' }, month: { type: 'string' }, limit: { type: 'string' } }, 0);
      const state = values.state as (typeof INVOICE_STATES)[number] | undefined;
      if (state !== undefined && !INVOICE_STATES.includes(state)) throw new UsageError(`--state must be one of ${INVOICE_STATES.join(', ')}`);
      const kind = values.kind as 'overage' | 'fee' | undefined;
      if (kind !== undefined && kind !== 'overage' && kind !== 'fee') throw new UsageError('--kind must be overage or fee');
      const period = values.month === undefined ? undefined : monthOf(values.month);
      const limit = values.limit === undefined ? 100 : integer(values.limit, '--limit');
      if (limit < 1 || limit > 500) throw new UsageError('--limit must be from 1 to 500');
      return async (context) => {
        let accountId: string | undefined;
        if (values.account !== undefined) {
          const account = await context.accounts.find(values.account);
          if (!account) return print({ kind: 'not_found', message: `No account with id or slug "${values.account}"` });
          accountId = account.id;
        }
        const list = await (await billingOf(context)).list({ accountId, state, kind, period, limit });
        return print(list.kind === 'ok' ? { kind: 'ok', value: { invoices: list.value } } : list);
      };
    }
    case 'get': {
      const { positionals } = parse(rest, {}, 1);
      return async (context) => {
        const billing = await billingOf(context);
        const invoice = await billing.invoice(positionals[0]!);
        return print(invoice.kind === 'ok' ? { kind: 'ok', value: { invoice: invoice.value, history: await billing.history(positionals[0]!) } } : invoice);
      };
    }
    case 'pay':
    case 'void':
    case 'uncollectible': {
      const { values, positionals } = parse(rest, { reason: { type: 'string' } }, 1);
      return async (context) => {
        const billing = await billingOf(context);
        const id = positionals[0]!;
        return print(verb === 'pay' ? await billing.markPaid(id, values.reason) : await billing.close(id, verb, values.reason));
      };
    }
    case 'run': {
      const { values } = parse(rest, { month: { type: 'string' } }, 0);
      const period = monthOf(required(values.month, '--month'));
      return async (context) => print(await (await billingOf(context)).rerunMonth(period, context.clock.now()));
    }
    default:
      throw new UsageError(verb === undefined ? 'invoices needs a command: list, get, pay, void, uncollectible or run' : `unknown invoices command "${verb}"`);
  }
}

function monthOf(text: string): number {
  const month = parseMonth(text);
  if (month === null) throw new UsageError(`--month must be a month as YYYY-MM (got "${text.slice(0, 20)}")`);
  return month;
}

function accountsCommand(verb: string | undefined, rest: string[]): Action {
  switch (verb) {
    case 'create': {
      const { values } = parse(rest, {
        slug: { type: 'string' },
        name: { type: 'string' },
        included: { type: 'string' },
        overage: { type: 'boolean' },
        unlimited: { type: 'boolean' },
        plan: { type: 'string' },
      });
      const included = values.included === undefined ? undefined : integer(values.included, '--included');
      if (values.overage && included === undefined) throw new UsageError('--overage needs --included N');
      if (values.plan !== undefined && included !== undefined) throw new UsageError('--plan and --included cannot be given together');
      const input = {
        slug: required(values.slug, '--slug'),
        name: values.name,
        unlimited: values.unlimited ?? false,
        plan: included === undefined ? undefined : { included, overage: values.overage ?? false },
        planId: values.plan,
      };
      return async ({ accounts }) => print(await accounts.createAccount(input));
    }
    case 'get': {
      const { positionals } = parse(rest, {}, 1);
      return async ({ accounts }) => print(await accounts.describe(positionals[0]!));
    }
    case 'list': {
      parse(rest, {}, 0);
      return async ({ accounts }) => {
        const rows = await accounts.listAccounts();
        return print({
          kind: 'ok',
          value: { accounts: rows.map((r) => ({ id: r.id, slug: r.slug, name: r.name, disabled: r.disabled === 1 })) },
        });
      };
    }
    case 'set':
      return setAccount(rest);
    case 'invite': {
      // A one-time link to the dashboard's sign-up for this account (docs/dashboard.md).
      const { positionals } = parse(rest, {}, 1);
      return async ({ accounts, users, baseUrl }) => {
        const account = await accounts.describe(positionals[0]!);
        if (account.kind !== 'ok') return print(account);
        const { token, expiresAt } = await users.invite(account.value.id);
        return print({ kind: 'ok', value: { accountId: account.value.id, link: `${baseUrl}/dashboard/invite/${token}`, expiresAt: new Date(expiresAt).toISOString() } });
      };
    }
    case 'usage': {
      const { values, positionals } = parse(rest, { days: { type: 'string' } }, 1);
      const days = values.days === undefined ? 30 : integer(values.days, '--days');
      if (days < 1 || days > 366) throw new UsageError('--days must be from 1 to 366');
      return async ({ accounts, db, clock }) => {
        const account = await accounts.describe(positionals[0]!);
        if (account.kind !== 'ok') return print(account);
        const to = Math.floor(clock.now() / DAY) * DAY + DAY;
        const { usageByDay } = await import('./metering/index.js');
        const rows = await usageByDay(db, account.value.id, to - days * DAY, to);
        return print({ kind: 'ok', value: { accountId: account.value.id, days: rows } });
      };
    }
    default:
      throw new UsageError(verb === undefined ? 'accounts needs a command: create, get, list, set, invite or usage' : `unknown accounts command "${verb}"`);
  }
}

function setAccount(argv: string[]): Action {
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
      plan: { type: 'string' },
      'gateway-customer': { type: 'string' },
      'payment-method': { type: 'string' },
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
  // Without --overage/--no-overage the account keeps its overage setting.
  const included = values.included === undefined ? undefined : integer(values.included, '--included');
  const patch = {
    disabled: exclusive(values.disabled, values.enabled, '--disabled and --enabled'),
    unlimited: exclusive(values.unlimited, values.limited, '--unlimited and --limited'),
    subscriptionStatus: status as 'active' | 'canceled' | 'past_due' | 'none' | undefined,
    planId: values.plan,
    gatewayCustomer: values['gateway-customer'],
    paymentMethod: values['payment-method'],
  };
  if (values.plan !== undefined && (included !== undefined || overage !== undefined)) throw new UsageError('--plan cannot be given with --included or --overage');
  if (Object.values(patch).every((v) => v === undefined) && included === undefined && overage === undefined) {
    throw new UsageError('accounts set needs at least one change');
  }
  return async ({ accounts }) => {
    let plan: { included: number; overage?: boolean } | undefined;
    if (included !== undefined) {
      plan = { included, overage };
    } else if (overage !== undefined) {
      const current = await accounts.describe(positionals[0]!);
      if (current.kind !== 'ok') return print(current);
      if (!current.value.subscription.plan) throw new UsageError('--overage needs --included N on an account without a plan');
      plan = { included: current.value.subscription.plan.included, overage };
    }
    return print(await accounts.updateAccount(positionals[0]!, { ...patch, plan }));
  };
}

/** Exits once stdout and stderr are flushed: a pipe takes 64 KiB at a time, and exiting earlier cuts long output. */
function exitAfterFlush(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

/** The commands whose output is JSON: their failures also leave {success: false, message} on stdout. */
const JSON_COMMANDS = new Set(['migrate', 'accounts', 'keys', 'plans', 'invoices', 'clock']);

/** `flightstatus accounts create --help`: the help that goes with a mistake in this command line. */
function helpPointer(argv: string[]): string {
  // `help nothing`: the list of commands is the help that goes with it.
  const words = argv[0] === 'help' ? [] : leadingWords(argv);
  for (const n of [2, 1]) {
    const found = helpTopic(words.slice(0, n));
    if ('topic' in found && found.topic !== '') return `flightstatus ${found.topic} --help`;
  }
  return 'flightstatus --help';
}

const argv = process.argv.slice(2);
main(argv).then(
  (code) => exitAfterFlush(code),
  async (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`flightstatus: ${error.message} (see ${helpPointer(argv)})\n`);
      return exitAfterFlush(2);
    }
    // The operator's to fix (a setting, the database): their message says it all, no stack needed.
    const known = error instanceof Error && ['ConfigError', 'DatabaseUnavailableError', 'MigrationError', 'SecretKeyError'].includes(error.name);
    const message = error instanceof Error ? error.message : String(error);
    if (argv[0] === 'serve') {
      // The service's own log (JSON on stdout) records why it stopped; the stack of an unexpected
      // error only at LOG_LEVEL=debug or trace, so the operator's terminal and log stay readable.
      const verbose = /^(debug|trace)$/i.test(process.env.LOG_LEVEL?.trim() ?? '');
      (await import('./logger.js')).createLogger('error').fatal({ err: !known && verbose ? error : undefined }, message.split('\n')[0]);
    } else if (JSON_COMMANDS.has(argv[0] ?? '')) {
      process.stdout.write(`${JSON.stringify({ success: false, message }, null, 2)}\n`);
    }
    process.stderr.write(`flightstatus: ${message}\n`);
    exitAfterFlush(1);
  },
);
