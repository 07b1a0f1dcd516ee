// The `flightstatus` command as operators use it (node dist/main.js, as `npx flightstatus` runs it):
// help and version that do nothing else, one-line usage errors and failures, and database commands
// that name their database, refuse a database other than the running service's, and take "now" from
// the service's clock.
import { hostname } from 'node:os';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { HELP } from '../src/cli/help.js';
import { helpRequest } from '../src/cli/index.js';
import { openDatabase, readDatabaseIdentity } from '../src/db/index.js';
import {
  createTestDatabase,
  describeEachDatabase,
  describeWithoutDatabase,
  type TestDatabase,
} from './helpers/databases.js';
import { ADMIN_TOKEN, json, startTestApp, type TestApp } from './helpers/app.js';
import { runCli, scratchDir, startService, type ServiceProcess } from './helpers/process.js';
import { PASSWORD, Visitor } from './helpers/dashboard.js';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;
/** A command that must end on its own: one that starts a server instead is killed and fails the test. */
const QUICK_MS = 20_000;
/** Tests that run many commands or a service on a loaded machine (2 cores shared by many). */
const SLOW_TEST_MS = 120_000;

/** A port nothing listens on (taken from the system, then released). */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return String(port);
}

/** The commands whose mistaken run would do most harm: their help is also asked of a real process. */
const HARMFUL = ['serve', 'migrate', 'accounts create', 'keys create', 'clock advance'];

/** Runs commands a few at a time (two cores are shared by everyone). */
async function inBatches<T, R>(items: T[], work: (item: T) => Promise<R>, size = 4): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(work))));
  return out;
}

describeWithoutDatabase('help and version', () => {
  it(
    'prints every command’s and subcommand’s own help on --help, -h and help COMMAND, exit 0, opening nothing',
    async () => {
      const cwd = scratchDir();
      // A configuration that would stop any real run: help must not even read it.
      const env = { DATABASE_URL: 'sqlite:./data/help.db', PORT: 'eighty' };
      const topics = Object.keys(HELP);
      expect(topics).toEqual(
        expect.arrayContaining([
          'serve',
          'migrate',
          'accounts create',
          'accounts usage',
          'keys enable',
          'clock advance',
          'sim flights',
        ]),
      );
      // Every topic's forms are routed to its help in the process's own code (helpRequest); each
      // command whose mistaken run would do most harm is also run, in each form, as a process: it
      // must print that help, exit 0 and open nothing. (All ~65 forms as processes took 16 s.)
      const forms = topics.flatMap((topic) => {
        const words = topic.split(' ');
        const asked = [
          [...words, '--help'],
          [...words, '-h'],
          ['help', ...words],
        ];
        for (const args of asked) expect(helpRequest(args), args.join(' ')).toBe(topic);
        return HARMFUL.includes(topic) ? asked.map((args) => ({ topic, args })) : [];
      });
      expect(forms).toHaveLength(HARMFUL.length * 3);
      const runs = await inBatches(forms, async ({ topic, args }) => ({
        topic,
        args,
        result: await runCli(args, env, cwd, QUICK_MS),
      }));
      for (const { topic, args, result } of runs) {
        const what = `flightstatus ${args.join(' ')}: ${result.stderr}`;
        expect(result.code, what).toBe(0);
        expect(result.stderr, what).toBe('');
        expect(result.stdout, what).toBe(`${HELP[topic]}\n`);
        expect(result.stdout.startsWith(`Usage: flightstatus ${topic}`), what).toBe(true);
      }
      for (const topic of topics) expect(HELP[topic]!.startsWith(`Usage: flightstatus ${topic}`), topic).toBe(true);
      // A subcommand's help also comes when its arguments are there.
      const withArgs = await runCli(['accounts', 'get', 'acme', '--help'], env, cwd, QUICK_MS);
      expect(withArgs.stdout).toBe(`${HELP['accounts get']}\n`);
      const top = await runCli(['--help'], env, cwd, QUICK_MS);
      expect(top).toMatchObject({ code: 0, stderr: '' });
      expect(top.stdout).toMatch(/^Usage: flightstatus <command>/);
      expect(existsSync(join(cwd, 'data'))).toBe(false);
    },
    SLOW_TEST_MS,
  );

  it('loads none of the service for help, version and usage errors: dist/main.js reaches no server, database or app code', () => {
    // What main.js imports statically, and what those chunks import: all that a `--help` loads. One
    // static import of the app (a helper taken from app.ts) once made every help 0.7 s instead of 0.2 s.
    const dist = new URL('../dist/', import.meta.url);
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      const text = readFileSync(new URL(file, dist), 'utf8');
      for (const [, target] of text.matchAll(/^import [^;]*?from "\.\.?\/((?:chunks\/)?[\w.-]+\.js)";$/gm))
        visit(file.startsWith('chunks/') && !target!.startsWith('chunks/') ? `chunks/${target}` : target!);
    };
    visit('main.js');
    expect(reached.size).toBeGreaterThan(1);
    for (const file of reached) {
      const text = readFileSync(new URL(file, dist), 'utf8');
      expect(text, file).not.toMatch(
        /from "(fastify|better-sqlite3|pg|pdfkit|@napi-rs\/canvas)"|function buildApp\b|class Kysely\b/,
      );
    }
  });

  it('prints the package version on --version and -V', async () => {
    for (const flag of ['--version', '-V']) {
      const result = await runCli([flag], { PORT: 'eighty' }, undefined, QUICK_MS);
      expect(result).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    }
  });
});

describeWithoutDatabase('usage errors', () => {
  it(
    'exit 2 with one line on stderr naming the problem and the help to read, and open no database',
    async () => {
      const cwd = scratchDir();
      const env = { DATABASE_URL: 'sqlite:./data/usage.db' };
      const cases: [string[], RegExp][] = [
        [[], /^flightstatus: no command given \(see flightstatus --help\)$/],
        [['frobnicate'], /^flightstatus: unknown command "frobnicate" \(see flightstatus --help\)$/],
        [
          ['accounts'],
          /^flightstatus: accounts needs a command: create, get, list, set, billing, invite or usage \(see flightstatus accounts --help\)$/,
        ],
        [['keys', 'frob'], /^flightstatus: unknown keys command "frob" \(see flightstatus keys --help\)$/],
        [
          ['accounts', 'create', '--slug', 'x1', '--included', 'lots'],
          /^flightstatus: --included must be a whole number \(see flightstatus accounts create --help\)$/,
        ],
        [
          ['accounts', 'create', '--slug'],
          /^flightstatus: --slug needs a value \(see flightstatus accounts create --help\)$/,
        ],
        [
          ['accounts', 'set', 'acme'],
          /^flightstatus: accounts set needs at least one change \(see flightstatus accounts set --help\)$/,
        ],
        [
          ['invoices', 'credit', 'inv_1'],
          /^flightstatus: --reason is required \(see flightstatus invoices credit --help\)$/,
        ],
        [
          ['accounts', 'list', '--colour'],
          /^flightstatus: Unknown option '--colour' \(see flightstatus accounts list --help\)$/,
        ],
        [
          ['migrate', '--url', 'nowhere'],
          /^flightstatus: --url must be the service address .* \(see flightstatus migrate --help\)$/,
        ],
        [['serve', '--port', '9'], /^flightstatus: Unknown option '--port' \(see flightstatus serve --help\)$/],
        [
          ['serve', '--role', 'boss'],
          /^flightstatus: --role must be one of all, api, worker \(got "boss"\) \(see flightstatus serve --help\)$/,
        ],
        [
          ['clock', 'advance', 'soon'],
          /^flightstatus: "soon" is not a duration.* \(see flightstatus clock advance --help\)$/,
        ],
        [['help', 'nothing'], /^flightstatus: unknown command "nothing" \(see flightstatus --help\)$/],
      ];
      const results = await inBatches(cases, ([args]) => runCli(args, env, cwd, QUICK_MS));
      cases.forEach(([args, line], i) => {
        const result = results[i]!;
        const what = `flightstatus ${args.join(' ')}: ${result.stderr}`;
        expect(result.code, what).toBe(2);
        expect(result.stdout, what).toBe('');
        expect(result.stderr.endsWith('\n') && result.stderr.split('\n').length === 2, what).toBe(true);
        expect(result.stderr.trimEnd(), what).toMatch(line);
      });
      expect(existsSync(join(cwd, 'data'))).toBe(false);
    },
    SLOW_TEST_MS,
  );
});

describeWithoutDatabase('failures', () => {
  it(
    'are one line on stderr; the JSON commands still leave their envelope on stdout, and no log line or stack',
    async () => {
      const broken = await runCli(
        ['accounts', 'list'],
        { DATABASE_URL: 'postgres://nobody:secret@127.0.0.1:1/none' },
        undefined,
        QUICK_MS,
      );
      expect(broken.code).toBe(1);
      const lines = broken.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(2);
      // The database it tried, named first, password redacted.
      expect(lines[0]).toBe('flightstatus: using postgres://nobody:***@127.0.0.1:1/none');
      expect(lines[1]).toMatch(
        /^flightstatus: Cannot open the database at postgres:\/\/nobody:\*\*\*@127\.0\.0\.1:1\/none: .*ECONNREFUSED/,
      );
      expect(JSON.parse(broken.stdout)).toEqual({ success: false, message: lines[1]!.slice('flightstatus: '.length) });
      expect(broken.stdout + broken.stderr).not.toMatch(/secret|\n\s+at |"level"/);

      const database = await createTestDatabase('sqlite');
      try {
        const missing = await runCli(
          ['accounts', 'get', 'nobody'],
          { DATABASE_URL: database.url },
          undefined,
          QUICK_MS,
        );
        expect(missing.code).toBe(1);
        expect(JSON.parse(missing.stdout)).toEqual({ success: false, message: 'No account with id or slug "nobody"' });
        const path = database.target.kind === 'sqlite' ? database.target.path : '';
        expect(missing.stderr).toBe(
          `flightstatus: using sqlite:${path} (no such file yet: a new database)\nflightstatus: No account with id or slug "nobody"\n`,
        );
        const again = await runCli(['accounts', 'list'], { DATABASE_URL: database.url }, undefined, QUICK_MS);
        expect(again.stderr).toBe(`flightstatus: using sqlite:${path}\n`);
        // Without DATABASE_URL (and no ./.env in this folder) the default, relative to the folder, is named as such.
        const cwd = scratchDir();
        const bare = await runCli(['accounts', 'list'], {}, cwd, QUICK_MS);
        expect(bare.code).toBe(0);
        expect(bare.stderr).toBe(
          `flightstatus: using sqlite:${join(cwd, 'data', 'flightstatus.db')} (DATABASE_URL is not set here or in ./.env: the default; no such file yet: a new database)\n`,
        );
      } finally {
        await database.drop();
      }
    },
    SLOW_TEST_MS,
  );
});

describeWithoutDatabase('serve failing to start', () => {
  it(
    'says why in one line on stderr, and logs one fatal line without a stack',
    async () => {
      const cwd = scratchDir();
      const result = await runCli(
        ['serve'],
        { HOST: 'nonexistent.invalid', PORT: '0', DATABASE_URL: 'sqlite:./data/serve.db' },
        cwd,
        QUICK_MS,
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toBe('flightstatus: HOST nonexistent.invalid is not a name this machine can resolve\n');
      // Info lines of the start before the failure (the webhook key file created) may precede it.
      const lines = result.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { level: number });
      const fatal = lines.filter((line) => line.level >= 50);
      expect(fatal).toHaveLength(1);
      const log = fatal[0]!;
      expect(log).toMatchObject({ level: 60, msg: 'HOST nonexistent.invalid is not a name this machine can resolve' });
      expect((log as { err?: unknown }).err).toBeUndefined();
      expect(result.stdout).not.toMatch(/"stack"|\\n\s+at |^\s+at /m);
    },
    SLOW_TEST_MS,
  );
});

describeWithoutDatabase('accounts invite', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { signupPlan: null });
  });
  afterAll(() => t.close());

  it(
    'prints a one-time dashboard link on the public URL that signs a person up into the account',
    async () => {
      const { accountId, slug } = await t.account();
      const result = await runCli(
        ['accounts', 'invite', slug],
        { DATABASE_URL: t.database.url, FLIGHTSTATUS_PUBLIC_URL: 'https://fs.example.com' },
        undefined,
        QUICK_MS,
      );
      expect(result.code).toBe(0);
      const { data } = JSON.parse(result.stdout) as { data: { accountId: string; link: string; expiresAt: string } };
      expect(data.accountId).toBe(accountId);
      expect(data.link).toMatch(/^https:\/\/fs\.example\.com\/dashboard\/invite\/[A-Za-z0-9_-]{43}$/);
      const visitor = new Visitor(t);
      const path = new URL(data.link).pathname;
      expect((await visitor.get(path)).statusCode).toBe(200);
      expect((await visitor.post(path, { email: 'invited@example.com', password: PASSWORD })).headers.location).toBe(
        '/dashboard/keys?welcome=1',
      );
      expect((await visitor.get(path)).statusCode).toBe(404);
      const unknown = await runCli(
        ['accounts', 'invite', 'nobody'],
        { DATABASE_URL: t.database.url },
        undefined,
        QUICK_MS,
      );
      expect(unknown.code).toBe(1);
    },
    SLOW_TEST_MS,
  );
});

describeWithoutDatabase('the service report', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(() => t.close());

  it('GET /api/admin/v1/service names the database by its stored id and gives the service clock', async () => {
    const response = await t.admin('GET', '/api/admin/v1/service');
    expect(response.statusCode).toBe(200);
    const db = await openDatabase(t.database.target);
    try {
      const id = await readDatabaseIdentity(db);
      expect(id).toMatch(/^db_[\w-]{16}$/);
      expect(json(response)).toEqual({
        success: true,
        data: {
          service: 'flightstatus',
          version: VERSION,
          database: { id, description: db.description },
          clock: { now: new Date(t.clock.now()).toISOString(), mode: 'manual' },
          role: 'all',
          process: `${hostname()}:${process.pid}`,
        },
      });
    } finally {
      await db.close();
    }
    const anonymous = await t.get('/api/admin/v1/service');
    expect(anonymous.statusCode).toBe(401);
    expect(json(anonymous)).toMatchObject({ success: false, code: 'unauthorized' });
  });
});

describeEachDatabase('database commands beside a running service', (kind) => {
  let database: TestDatabase;
  let other: TestDatabase | null = null;
  let service: ServiceProcess | null = null;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterEach(async () => {
    await service?.stop();
    service = null;
    await other?.drop();
    other = null;
  });
  afterAll(() => database.drop());

  const manual = {
    FLIGHTSTATUS_CLOCK: 'manual',
    FLIGHTSTATUS_CLOCK_START: '2026-03-01T06:00:00Z',
    FLIGHTSTATUS_ADMIN_TOKEN: ADMIN_TOKEN,
  };

  it(
    'anchors a new account’s window at the service’s manual clock, also before the service starts',
    async () => {
      // No service yet (nothing on PORT): the clock it will start with.
      const before = await runCli(
        ['accounts', 'create', '--slug', 'early', '--included', '10'],
        { ...manual, DATABASE_URL: database.url, PORT: await closedPort() },
        undefined,
        QUICK_MS,
      );
      expect(before.code, before.stderr).toBe(0);
      expect(JSON.parse(before.stdout).data.subscription.windowAnchor).toBe('2026-03-01T06:00:00.000Z');
      expect(before.stderr).toMatch(
        /no service answered at http:\/\/127\.0\.0\.1:\d+; "now" is where its manual clock would start: FLIGHTSTATUS_CLOCK_START/,
      );

      service = await startService({ ...manual, DATABASE_URL: database.url, LOG_LEVEL: 'warn' });
      const env = { ...manual, DATABASE_URL: database.url };
      const url = ['--url', service.url];
      expect((await runCli(['clock', 'advance', '3d', ...url], env, undefined, QUICK_MS)).code).toBe(0);
      // A refused clock move: the envelope on stdout, its message as one line on stderr.
      const back = await runCli(['clock', 'set', '2026-03-01T00:00:00Z', ...url], env, undefined, QUICK_MS);
      expect(back.code).toBe(1);
      expect(JSON.parse(back.stdout)).toMatchObject({
        success: false,
        message: expect.stringMatching(/never goes back/),
      });
      expect(back.stderr).toMatch(
        /^flightstatus: The clock never goes back: it is already 2026-03-04T06:00:00\.000Z\n$/,
      );

      const created = await runCli(
        ['accounts', 'create', '--slug', 'late', '--included', '10', ...url],
        env,
        undefined,
        QUICK_MS,
      );
      expect(created.code, created.stderr).toBe(0);
      const account = JSON.parse(created.stdout).data;
      expect(account.subscription.windowAnchor).toBe('2026-03-04T06:00:00.000Z');
      expect(account.credits).toMatchObject({
        periodStart: '2026-03-04T06:00:00.000Z',
        periodEnd: '2026-04-03T06:00:00.000Z',
        remaining: 10,
      });
      const key = await runCli(
        ['keys', 'create', '--account', 'late', '--name', 'k', ...url],
        env,
        undefined,
        QUICK_MS,
      );
      expect(JSON.parse(key.stdout).data.createdAt).toBe('2026-03-04T06:00:00.000Z');

      // The service agrees: the window it meters is the one the CLI reported.
      const response = await fetch(`${service.url}/api/v1/account`, {
        headers: { authorization: `Bearer ${JSON.parse(key.stdout).data.key}` },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-credits-period-end')).toBe('2026-04-03T06:00:00.000Z');
    },
    SLOW_TEST_MS,
  );

  it(
    'refuses to work on another database than the service’s, and names the one it opened',
    async () => {
      service = await startService({ ...manual, DATABASE_URL: database.url, LOG_LEVEL: 'warn' });
      other = await createTestDatabase(kind);
      const url = ['--url', service.url];
      const wrong = await runCli(
        ['accounts', 'create', '--slug', 'lost', '--included', '10', ...url],
        { ...manual, DATABASE_URL: other.url },
        undefined,
        QUICK_MS,
      );
      expect(wrong.code).toBe(1);
      const lines = wrong.stderr.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^flightstatus: using (sqlite|postgres):/);
      expect(lines.at(-1)).toMatch(
        new RegExp(
          `^flightstatus: the service at ${service.url.replace(/\./g, '\\.')} uses .* not .*; run this command with the service's DATABASE_URL`,
        ),
      );
      expect(JSON.parse(wrong.stdout).success).toBe(false);
      // Nothing was written to the other database: not even its tables.
      if (other.target.kind === 'sqlite') {
        expect(existsSync(other.target.path)).toBe(false);
      } else {
        const db = await openDatabase(other.target);
        try {
          expect(await readDatabaseIdentity(db)).toBeNull();
        } finally {
          await db.close();
        }
      }
      const migrate = await runCli(['migrate', ...url], { ...manual, DATABASE_URL: other.url }, undefined, QUICK_MS);
      expect(migrate.code).toBe(1);

      // A service that will not say which database it uses (wrong token) is a refusal too.
      const badToken = await runCli(
        ['accounts', 'list', ...url],
        { ...manual, DATABASE_URL: database.url, FLIGHTSTATUS_ADMIN_TOKEN: 'not-the-token-0123456789' },
        undefined,
        QUICK_MS,
      );
      expect(badToken.code).toBe(1);
      expect(badToken.stderr.trimEnd().split('\n').at(-1)).toBe(
        `flightstatus: the service at ${service.url} refused FLIGHTSTATUS_ADMIN_TOKEN; set it as the service has it (or pass --url for another service)`,
      );

      // The same database, however it is spelt, is accepted (a relative SQLite path here).
      const sameUrl =
        database.target.kind === 'sqlite' ? `sqlite:./${database.target.path.split('/').at(-1)}` : database.url;
      const cwd =
        database.target.kind === 'sqlite'
          ? database.target.path.slice(0, database.target.path.lastIndexOf('/'))
          : undefined;
      const right = await runCli(['accounts', 'list', ...url], { ...manual, DATABASE_URL: sameUrl }, cwd, QUICK_MS);
      expect(right.code, right.stderr).toBe(0);
      expect(right.stderr.split('\n')[0]).toMatch(/^flightstatus: using /);
    },
    SLOW_TEST_MS,
  );
});
