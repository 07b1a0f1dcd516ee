// Start-up and shutdown as an operator sees them: first start creates ./data and migrates, a bad
// configuration or an unreachable database stops the start with a clear message, SIGTERM lets
// in-flight requests finish and commits their usage before the database closes.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { ManualClock } from '../src/clock.js';
import { openDatabase } from '../src/db/index.js';
import { MIGRATION_NAMES } from '../src/db/migrate.js';
import type { FlightResolver } from '../src/flights/index.js';
import { createLogger } from '../src/logger.js';
import { createTestDatabase, describeEachDatabase, describeWithoutDatabase } from './helpers/databases.js';
import { requestsAnswering } from '../src/foreground.js';
import { notFoundAnswer } from './helpers/app.js';
import { runCli, scratchDir, startService } from './helpers/process.js';

describeWithoutDatabase('start-up', () => {
  it('creates ./data/flightstatus.db on first start, migrates it, and tells the operator how to begin', async () => {
    const cwd = scratchDir();
    const service = await startService({}, cwd);
    try {
      expect(existsSync(join(cwd, 'data', 'flightstatus.db'))).toBe(true);
      const health = await fetch(`${service.url}/api/health`);
      expect(await health.json()).toEqual({ ok: true, service: 'flight-status-service' });
      const { stderr, stdout } = service.output();
      expect(stderr).toMatch(/npx flightstatus accounts create --slug demo --included 1000/);
      expect(stderr).toMatch(/npx flightstatus keys create --account demo --name first/);
      expect(stdout).toMatch(/"msg":"flight status service started"/);
    } finally {
      expect(await service.stop('SIGTERM')).toBe(0);
    }
    expect(service.output().stdout).toMatch(/"msg":"stopped"/);
    // The CLI finds the same default database in the same folder.
    const listed = await runCli(['accounts', 'list'], {}, cwd);
    expect(JSON.parse(listed.stdout)).toEqual({ success: true, data: { accounts: [] } });
  });

  it('refuses a bad configuration with one line per problem and no stack trace', async () => {
    const result = await runCli(['serve'], { PORT: 'eighty', LOG_LEVEL: 'chatty', DATABASE_URL: 'mysql://x' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/PORT must be an integer/);
    expect(result.stderr).toMatch(/LOG_LEVEL must be one of/);
    expect(result.stderr).toMatch(/DATABASE_URL must start with sqlite: or postgres:\/\//);
    expect(result.stdout + result.stderr).not.toMatch(/\n\s+at /);
    // The service's JSON log line says what is wrong too, in its message and as a list.
    const fatal = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as {
      level: number;
      msg: string;
      problems: string[];
    };
    expect(fatal.level).toBe(60);
    expect(fatal.msg).toMatch(/^Invalid configuration: .*PORT must be an integer.*; .*LOG_LEVEL must be one of/);
    expect(fatal.problems).toHaveLength(3);
    expect(fatal.problems.join('\n')).toMatch(/DATABASE_URL must start with sqlite: or postgres:\/\//);
  });

  it('refuses an unreachable database with a clear message', async () => {
    const result = await runCli(['serve'], { DATABASE_URL: 'postgres://nobody:secret@127.0.0.1:1/none' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /Cannot open the database at postgres:\/\/nobody:\*\*\*@127\.0\.0\.1:1\/none: .*ECONNREFUSED/,
    );
    expect(result.stdout + result.stderr).not.toMatch(/secret/);
  });

  it('refuses a port in use', async () => {
    const first = await startService({});
    try {
      const port = new URL(first.url).port;
      const second = await runCli(['serve'], { PORT: port });
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(new RegExp(`Port ${port} on 127.0.0.1 is already in use`));
    } finally {
      await first.stop();
    }
  });
});

describeWithoutDatabase('npm start', () => {
  it('stops the service when npm is sent SIGTERM (npm passes it only to its shell)', async () => {
    const dir = scratchDir();
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env: { ...process.env, PORT: '0', DATABASE_URL: `sqlite:${join(dir, 'npm.db')}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    npm.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    const url = await new Promise<string>((resolve, reject) => {
      npm.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk;
        const match = /is listening on (http:\/\/\S+)/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      npm.once('exit', () => reject(new Error(`npm start exited before listening:\n${stderr}`)));
    });
    expect((await fetch(`${url}/api/health`)).status).toBe(200);
    npm.kill('SIGTERM');
    // The service notices its parent is gone, finishes, and closes its port.
    const deadline = Date.now() + 15_000;
    let closed = false;
    while (!closed && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      closed = await fetch(`${url}/api/health`).then(
        () => false,
        () => true,
      );
    }
    expect(closed, 'the service still answers after npm was sent SIGTERM').toBe(true);
    // Its last log line may still be in the pipe: wait for it, not for a guessed time.
    while (!/"signal":"parent exited"/.test(stdout) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stdout).toMatch(/"signal":"parent exited"/);
  }, 60_000);
});

describeEachDatabase('migrations', (kind) => {
  it('apply once when several processes start on a new database at the same moment', async () => {
    for (let round = 0; round < 4; round++) {
      const database = await createTestDatabase(kind);
      try {
        const runs = await Promise.all([0, 1, 2].map(() => runCli(['migrate'], { DATABASE_URL: database.url })));
        for (const run of runs) expect(run.code, run.stdout + run.stderr).toBe(0);
        const applied = runs.flatMap((run) => JSON.parse(run.stdout).data.applied);
        expect(applied.sort()).toEqual(MIGRATION_NAMES);
      } finally {
        await database.drop();
      }
    }
  });
});

describeWithoutDatabase('graceful shutdown', () => {
  it('finishes in-flight requests and commits their usage rows before closing the database', async () => {
    const database = await createTestDatabase('sqlite');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    const resolver: FlightResolver = {
      async resolve(query) {
        started();
        await gate;
        return notFoundAnswer(query);
      },
    };
    const config = { ...loadConfig({}), port: 0, database: database.target, logLevel: 'silent' as const };
    const app = await buildApp({ config, clock: new ManualClock(), logger: createLogger('silent'), resolver });
    const created = await app.accounts.createAccount({ slug: 'slow', plan: { included: 10 } });
    if (created.kind !== 'ok') throw new Error(created.message);
    const key = await app.accounts.createKey('slow', 'k');
    if (key.kind !== 'ok') throw new Error(key.message);
    const address = await app.http.listen({ port: 0, host: '127.0.0.1' });

    // Two requests pipelined on one keep-alive connection: the lookup in flight, then a probe.
    const { port } = new URL(address);
    const answers = new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        const auth = `Authorization: Bearer ${key.value.key}\r\n`;
        socket.write(
          `GET /api/v1/flights/status?flightNumber=W63101&flightDate=2026-01-01 HTTP/1.1\r\nHost: x\r\n${auth}\r\n`,
        );
        socket.write('GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n');
      });
      let data = '';
      socket.on('data', (chunk) => (data += chunk));
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
    });
    await inFlight;
    const closed = app.close();
    // New connections are refused while the in-flight request is still being answered.
    await expect(fetch(`${address}/api/health`)).rejects.toThrow();
    release();
    const raw = await answers;
    // The lookup completes and its connection closes (the pipelined probe is not served), instead
    // of an idle keep-alive socket holding the server open.
    expect(raw.match(/HTTP\/1.1 \d+/g)).toEqual(['HTTP/1.1 200']);
    expect(raw).toMatch(/connection: close/i);
    await closed;
    // Neither request is counted as being answered any more, the unserved probe included (its
    // response never closes; its connection did): background work would otherwise wait for it.
    expect(requestsAnswering()).toBe(0);

    const reopened = await openDatabase(database.target);
    const rows = await reopened.kysely.selectFrom('usage_log').selectAll().execute();
    expect(rows.map((r) => r.status)).toEqual([200]);
    await reopened.close();
    await database.drop();
  });
});
