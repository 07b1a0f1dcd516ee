// A machine without the canvas binary (macOS without its optional package, Alpine, arm, an install
// with --omit=optional): the service starts, the CLI works, every lookup is served, and a lookup
// that asks for the proof image gets the record with `proof: null` and the reason, never a 5xx.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';
import { runCli, startService, type ServiceProcess } from './helpers/process.js';

const HOOK = fileURLToPath(new URL('./fixtures/without-canvas.mjs', import.meta.url));
const WITHOUT_CANVAS = { NODE_OPTIONS: `--import=${HOOK}` };

describe('without the native canvas module', () => {
  let database: TestDatabase;
  let service: ServiceProcess;
  let key: string;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    const env = { ...WITHOUT_CANVAS, DATABASE_URL: database.url };
    service = await startService({ ...env, LOG_LEVEL: 'warn' });
    const created = await runCli(['accounts', 'create', '--slug', 'nocanvas', '--included', '10'], env);
    expect(created.code, created.stderr).toBe(0);
    const issued = await runCli(['keys', 'create', '--account', 'nocanvas', '--name', 'k'], env);
    expect(issued.code, issued.stderr).toBe(0);
    key = JSON.parse(issued.stdout).data.key;
  });
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('really cannot load the canvas in such a process', () => {
    const probe = spawnSync(
      process.execPath,
      [`--import=${HOOK}`, '--input-type=module', '-e', "await import('@napi-rs/canvas')"],
      {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        encoding: 'utf8',
      },
    );
    expect(probe.status).toBe(1);
    expect(probe.stderr).toContain('Cannot find native binding for @napi-rs/canvas');
  });

  it('prints the help', async () => {
    const help = await runCli(['--help'], WITHOUT_CANVAS);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: flightstatus');
  });

  it('serves lookups, and a proof request gets the record with proof null and the reason', async () => {
    const query = `${service.url}/api/v1/flights/status?flightNumber=W63101&flightDate=2026-02-20`;
    const plain = await fetch(query, { headers: { authorization: `Bearer ${key}` } });
    expect(plain.status).toBe(200);

    const response = await fetch(`${query}&screenshot=1`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await response.json()) as {
      success: boolean;
      data: { flightNumber: string; proof: unknown; proofError?: string };
    };
    expect(response.status).toBe(200);
    expect(body.success).toBe(true);
    expect(body.data.flightNumber).toBe('W63101');
    expect(body.data.proof).toBeNull();
    expect(body.data.proofError).toMatch(/proof image is unavailable on this server.*@napi-rs\/canvas/);
    expect(response.headers.get('x-credits-used')).toBe('2');
  });
});
