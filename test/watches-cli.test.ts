// `flightstatus watch` against a real service process, as an account's script runs it: one flight
// from flags, a CSV of them, the list, and stopping one; refusals name this command's flags.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createTestDatabase } from './helpers/databases.js';
import { runCli, scratchDir, startService } from './helpers/process.js';

const DATE = '2026-02-20';

it('adds a watch from flags and from a CSV, lists them, stops one; refuses in its own words', async () => {
  const database = await createTestDatabase('sqlite', { migrated: true });
  const env = {
    DATABASE_URL: database.url,
    FLIGHTSTATUS_CLOCK: 'manual',
    FLIGHTSTATUS_CLOCK_START: '2026-03-01T12:00:00Z',
    FLIGHTSTATUS_WEBHOOK_ALLOW_HTTP: '1',
    FLIGHTSTATUS_WEBHOOK_ALLOW_PRIVATE: '1',
    LOG_LEVEL: 'warn',
  };
  const service = await startService(env);
  try {
    await runCli(['accounts', 'create', '--slug', 'insurer', '--included', '100'], env);
    const key = JSON.parse((await runCli(['keys', 'create', '--account', 'insurer', '--name', 'k'], env)).stdout).data
      .key as string;
    const hook = await fetch(`${service.url}/api/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'policies', url: 'http://127.0.0.1:9/hook', airports: ['OTP'] }),
    });
    expect(hook.status).toBe(201);
    const endpoint = ((await hook.json()) as { data: { id: string } }).data.id;
    const dir = scratchDir();
    const cli = (...args: string[]) => runCli(['watch', ...args, '--key', key, '--url', service.url], env, dir);

    const one = await cli(
      'add',
      ...['--flight', 'W6 3101', '--date', DATE, '--origin', 'OTP', '--destination', 'LTN', '--reference', 'P-1'],
      ...['--endpoint', endpoint],
    );
    expect(one.code, one.stderr).toBe(0);
    const watch = JSON.parse(one.stdout).data;
    expect(watch).toMatchObject({ flightNumber: 'W63101', flightDate: DATE, reference: 'P-1', state: 'active' });
    expect(watch).toMatchObject({ origin: 'OTP', destination: 'LTN' });
    expect(watch.endpoints).toEqual([endpoint]);

    const file = join(dir, 'policies.csv');
    writeFileSync(file, `flightNumber,flightDate,reference\nW61001,${DATE},P-2\nW61002,${DATE},P-3\n`);
    const many = await cli('add', file, '--endpoint', endpoint);
    expect(many.code, many.stderr).toBe(0);
    expect(JSON.parse(many.stdout).data).toMatchObject({ created: 2, credits: 2 });

    const listed = await cli('list', '--state', 'active', '--limit', '2');
    expect(listed.code, listed.stderr).toBe(0);
    const page = JSON.parse(listed.stdout).data;
    expect(page.watches).toHaveLength(2);
    expect(page.hasMore).toBe(true);

    const stopped = await cli('rm', watch.id);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(JSON.parse(stopped.stdout).data).toMatchObject({ id: watch.id, state: 'stopped' });
    expect(JSON.parse((await cli('list', '--state', 'stopped')).stdout).data.watches.map((w: any) => w.id)).toEqual([
      watch.id,
    ]);

    // Refusals: the API's words for its query parameters become this command's flags.
    writeFileSync(join(dir, 'bad.csv'), `flightNumber,flightDate\nW61003,${DATE}\nnot a flight,${DATE}\n`);
    const refused = await cli('add', join(dir, 'bad.csv'), '--endpoint', endpoint);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/1 of 2 rows are invalid and no watch was created \(run again with --skip-invalid/);
    expect(JSON.parse(refused.stdout)).toMatchObject({ success: false });
    const foreign = await cli('add', '--flight', 'W63101', '--date', DATE, '--endpoint', 'wh_nope');
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(/"wh_nope" is not a webhook endpoint of this account/);
    const usage = await cli('add', '--flight', 'W63101', '--date', DATE);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--endpoint is required/);
    const help = await runCli(['watch', 'add', '--help'], env, dir);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: flightstatus watch add /);
  } finally {
    await service.stop();
    await database.drop();
  }
}, 60_000);
