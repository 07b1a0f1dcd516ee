// The built service as real processes on a real database: credits stay exact with 300 concurrent
// requests on one process and on two processes sharing the database, and the CLI manages accounts
// while the service runs.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createTestDatabase, describeEachDatabase, itWithoutDatabase, type TestDatabase } from './helpers/databases.js';
import { runCli, startService, type ServiceProcess } from './helpers/process.js';

const STATUS = '/api/v1/flights/status?flightNumber=W63101&flightDate=2026-02-20';

describeEachDatabase('service processes', (kind) => {
  let database: TestDatabase;
  const services: ServiceProcess[] = [];
  beforeEach(async () => {
    database = await createTestDatabase(kind);
  });
  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.stop()));
    await database.drop();
  });

  async function cli(...args: string[]) {
    const result = await runCli(args, { DATABASE_URL: database.url });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    return JSON.parse(result.stdout).data;
  }

  async function fire(urls: string[], key: string): Promise<Record<number, number>> {
    const statuses = await Promise.all(
      urls.map(async (url) => {
        const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    const counts: Record<number, number> = {};
    for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  }

  it('with an allowance of 100, exactly 100 of 300 concurrent requests succeed and 200 get 429', async () => {
    const service = await startService({ DATABASE_URL: database.url, LOG_LEVEL: 'warn' });
    services.push(service);
    // The CLI works on the same database while the service runs.
    const account = await cli('accounts', 'create', '--slug', 'burst', '--included', '100');
    const { key } = await cli('keys', 'create', '--account', 'burst', '--name', 'load');

    const counts = await fire(
      Array.from({ length: 300 }, () => service.url + STATUS),
      key,
    );
    expect(counts).toEqual({ 200: 100, 429: 200 });

    const after = await cli('accounts', 'get', account.id);
    expect(after.credits).toMatchObject({ included: 100, used: 100, remaining: 0 });
    expect(after.requestCount).toBe(100);
    const usage = await cli('accounts', 'usage', 'burst');
    expect(usage.days.reduce((sum: number, d: { requests: number }) => sum + d.requests, 0)).toBe(100);
  });

  it('stays exact with two service processes sharing one database', async () => {
    const [a, b] = await Promise.all([
      startService({ DATABASE_URL: database.url, LOG_LEVEL: 'warn' }),
      startService({ DATABASE_URL: database.url, LOG_LEVEL: 'warn' }),
    ]);
    services.push(a!, b!);
    await cli('accounts', 'create', '--slug', 'shared', '--included', '100');
    const { key } = await cli('keys', 'create', '--account', 'shared', '--name', 'load');

    const urls = Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? a!.url : b!.url) + STATUS);
    expect(await fire(urls, key)).toEqual({ 200: 100, 429: 200 });
    expect((await cli('accounts', 'get', 'shared')).requestCount).toBe(100);

    // A change made by the CLI is seen by both processes at once.
    await cli('accounts', 'set', 'shared', '--disabled');
    expect(await fire([a!.url + STATUS, b!.url + STATUS], key)).toEqual({ 403: 2 });
  });
});

itWithoutDatabase('the CLI explains its usage and refuses bad arguments', async () => {
  const database = await createTestDatabase('sqlite');
  try {
    const env = { DATABASE_URL: database.url };
    const help = await runCli(['help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/accounts create --slug SLUG/);
    const bad = await runCli(['accounts', 'create', '--slug', 'x1', '--included', 'lots'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--included must be a whole number/);
    const missing = await runCli(['accounts', 'get', 'nobody'], env);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toEqual({ success: false, message: 'No account with id or slug "nobody"' });
    const unknown = await runCli(['frobnicate'], env);
    expect(unknown.code).toBe(2);

    const created = await runCli(['accounts', 'create', '--slug', 'acme', '--included', '10', '--overage'], env);
    expect(JSON.parse(created.stdout).data.subscription.plan).toEqual({ included: 10, overage: true });
    const set = await runCli(['accounts', 'set', 'acme', '--status', 'past_due', '--no-overage'], env);
    expect(JSON.parse(set.stdout).data.subscription).toMatchObject({
      status: 'past_due',
      plan: { included: 10, overage: false },
    });
    const key = JSON.parse((await runCli(['keys', 'create', '--account', 'acme', '--name', 'ci'], env)).stdout).data;
    expect(key.key).toMatch(/^flt_/);
    const disabled = await runCli(['keys', 'disable', key.keyId], env);
    expect(JSON.parse(disabled.stdout).data).toMatchObject({ keyId: key.keyId, disabled: true });
    const listed = JSON.parse((await runCli(['accounts', 'list'], env)).stdout).data.accounts;
    expect(listed.map((a: { slug: string }) => a.slug)).toEqual(['acme']);
  } finally {
    await database.drop();
  }
});
