// `flightstatus serve`: runs the service (what `npm start` runs) until SIGTERM or SIGINT, and tells
// the person who started it where to find it.
import type { Config } from '../config.js';
import { parseRole, ROLES } from '../config/roles.js';
import { parse, UsageError } from './args.js';
import type { Command } from './commands.js';

const help = {
  serve: `Usage: flightstatus serve [--role all|api|worker] [--exit-with-parent]

Runs the service on HOST:PORT (default 127.0.0.1:8080) with the database of DATABASE_URL, migrating
it first; what npm start runs. SIGTERM or Ctrl-C stops it gracefully.

  --role all      the API and the periodic jobs in this one process (the default, FLIGHTSTATUS_ROLE)
  --role api      the HTTP API and dashboard only; run a worker beside it
  --role worker   the board poll, webhook deliveries, invoicing and pruning; answers only
                  /api/health, /api/ready, /metrics and the operator's clock and service report

  --exit-with-parent
                  also stop gracefully when the process that started this one ends. npm start
                  uses it: npm passes SIGTERM to its shell only, which would leave the service
                  running on its own.

Several processes share one PostgreSQL (docs/deploy.md).`,
};

/** How long in-flight requests may take to finish after SIGTERM before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 25_000;

/** How often a service started with --exit-with-parent looks whether its parent is still there. */
const PARENT_CHECK_MS = 500;

async function serveCommand(config: Config, argv: string[]): Promise<number> {
  const { values } = parse(argv, { role: { type: 'string' }, 'exit-with-parent': { type: 'boolean' } }, 0);
  const exitWithParent = values['exit-with-parent'] === true;
  if (values.role === undefined) return runService(config, exitWithParent);
  const role = parseRole(values.role);
  if (role === null)
    throw new UsageError(`--role must be one of ${ROLES.join(', ')} (got "${values.role.slice(0, 40)}")`);
  return runService({ ...config, role }, exitWithParent);
}

async function runService(config: Config, exitWithParent: boolean): Promise<number> {
  const parent = process.ppid;
  const { buildApp } = await import('../app.js');
  const app = await buildApp({ config });
  const { logger } = app;
  try {
    await app.http.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE')
      throw new Error(`Port ${config.port} on ${config.host} is already in use; set PORT to another one`, {
        cause: error,
      });
    if (code === 'EADDRNOTAVAIL')
      throw new Error(`HOST ${config.host} is not an address of this machine`, { cause: error });
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      throw new Error(`HOST ${config.host} is not a name this machine can resolve`, { cause: error });
    throw error;
  }
  const address = app.http.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info(
    { url: base, database: app.db.description, admin: config.adminToken !== null, role: config.role },
    'flight status service started',
  );
  process.stderr.write(
    config.role === 'worker' ? workerBanner(base, app.db.description) : banner(base, app.db.description, config),
  );

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
  if (exitWithParent) {
    // An orphaned process is adopted by another (init or a subreaper), so its parent id changes.
    const watch = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(watch);
      stop('parent exited');
    }, PARENT_CHECK_MS);
    watch.unref();
  }
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
    config.adminToken
      ? `  Operator API: ${base}/api/admin/v1 (Bearer FLIGHTSTATUS_ADMIN_TOKEN)`
      : '  Operator API: off (set FLIGHTSTATUS_ADMIN_TOKEN to enable it)',
    '',
  ];
  return `${lines.join('\n')}\n`;
}

export const serve: Command = { help, json: false, run: serveCommand };
