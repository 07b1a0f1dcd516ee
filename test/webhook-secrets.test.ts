// Webhook signing secrets at rest (docs/operator.md): never stored in clear by any deployment. SQLite
// makes its key on first start, in a 0600 file beside the database that the CLI uses too; PostgreSQL
// needs FLIGHTSTATUS_WEBHOOK_SECRET_KEY; secrets stored in clear by an earlier version are sealed at
// start. Through real processes and HTTP, reading the database directly.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Database as BetterSqlite3 } from '../src/db/sqlite-driver.js';
import { describe, expect, it } from 'vitest';
import { buildApp, buildServices } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { openDatabase } from '../src/db/index.js';
import { createLogger } from '../src/logger.js';
import { parseSecretKey } from '../src/config.js';
import { SecretBox } from '../src/webhooks/secrets.js';
import { verifyWebhook } from '../src/webhooks/verify.js';
import {
  createTestDatabase,
  DATABASE_KINDS,
  describeEachDatabase,
  describeWithoutDatabase,
} from './helpers/databases.js';
import { bearer, json, startTestApp } from './helpers/app.js';
import { runCli, scratchDir, startService } from './helpers/process.js';
import { startReceiver } from './helpers/receiver.js';

const SEALED = /^sealed:v1:/;

describeWithoutDatabase('webhook secrets on a fresh SQLite start', () => {
  it('creates the key file beside the database with mode 0600, says so without printing it, and stores no secret in clear', async () => {
    const cwd = scratchDir();
    const path = join(cwd, 'data', 'service.db');
    const env = {
      DATABASE_URL: `sqlite:${path}`,
      FLIGHTSTATUS_WEBHOOK_ALLOW_HTTP: '1',
      FLIGHTSTATUS_WEBHOOK_ALLOW_PRIVATE: '1',
    };
    const service = await startService(env, cwd);
    const receiver = await startReceiver();
    try {
      const keyFile = `${path}.webhook-key`;
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      const keyText = readFileSync(keyFile, 'utf8').trim();
      expect(keyText).toMatch(/^[0-9a-f]{64}$/);
      const { stdout, stderr } = service.output();
      expect(stdout).toContain(
        `webhook secrets are sealed at rest with the key in ${keyFile} (created now: back it up with the database)`,
      );
      expect(stdout + stderr).not.toContain(keyText);

      expect((await runCli(['accounts', 'create', '--slug', 'fresh', '--included', '10'], env, cwd)).code).toBe(0);
      const key = JSON.parse((await runCli(['keys', 'create', '--account', 'fresh', '--name', 'k'], env, cwd)).stdout)
        .data.key;
      const created = await fetch(`${service.url}/api/v1/webhooks`, {
        method: 'POST',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'fresh', url: `${receiver.url}/h`, airports: ['OTP'] }),
      });
      expect(created.status).toBe(201);
      const hook = ((await created.json()) as { data: { id: string; secret: string } }).data;

      const sqlite = new BetterSqlite3(path, { readonly: true });
      const rows = sqlite.prepare('SELECT id, secret FROM endpoints').all() as { id: string; secret: string }[];
      sqlite.close();
      expect(rows).toHaveLength(1);
      expect(rows[0]!.secret).toMatch(SEALED);
      expect(rows[0]!.secret).not.toContain(hook.secret.slice(6));
      expect(new SecretBox(parseSecretKey(keyText)).open(hook.id, rows[0]!.secret)).toBe(hook.secret);

      // And it signs with the secret the API returned.
      const test = await fetch(`${service.url}/api/v1/webhooks/${hook.id}/test`, {
        method: 'POST',
        headers: bearer(key),
      });
      expect(((await test.json()) as { data: { delivered: boolean } }).data.delivered).toBe(true);
      const got = receiver.received[0]!;
      expect(verifyWebhook(got.raw, got.headers['x-flight-signature'], hook.secret).type).toBe('webhook.test');
      expect(service.output().stdout).not.toContain(hook.secret);
    } finally {
      await service.stop();
      await receiver.close();
    }
  });
});

describeWithoutDatabase('the CLI and the service', () => {
  it('use the same key file: `migrate` creates it and seals, the service then opens what it sealed', async () => {
    const cwd = scratchDir();
    const path = join(cwd, 'shared.db');
    const target = { kind: 'sqlite' as const, path, url: `sqlite:${path}` };
    // A database as an earlier version left it: migrated, one endpoint with its secret in clear.
    const db = await openDatabase(target, { migrate: true });
    const { accounts } = buildServices(db, systemClock, { signupPlan: null });
    const account = await accounts.createAccount({ slug: 'old', plan: { included: 10 } });
    if (account.kind !== 'ok') throw new Error(account.message);
    const plaintext = 'whsec_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';
    const now = Date.now();
    await db.kysely
      .insertInto('endpoints')
      .values({
        id: 'wh_old0000000000000001',
        account_id: account.value.id,
        name: 'old',
        url: 'https://hooks.example.com/h',
        airports: '["OTP"]',
        enabled: 1,
        secret: plaintext,
        consecutive_failures: 0,
        created_at: now,
        updated_at: now,
        disabled_at: null,
        disabled_reason: null,
      })
      .execute();
    await db.close();

    const env = { DATABASE_URL: `sqlite:${path}` };
    const migrated = await runCli(['migrate'], env, cwd);
    expect(migrated.code, migrated.stderr).toBe(0);
    const keyFile = `${path}.webhook-key`;
    expect(JSON.parse(migrated.stdout).data).toMatchObject({ webhookSecretKey: keyFile, sealedSecrets: 1 });
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const keyText = readFileSync(keyFile, 'utf8');

    const service = await startService(env, cwd);
    try {
      // Had the service made a key of its own, the sealed secret would not open and it would not start.
      expect(service.output().stdout).toContain(`webhook secrets are sealed at rest with the key in ${keyFile}"`);
    } finally {
      await service.stop();
    }
    expect(readFileSync(keyFile, 'utf8')).toBe(keyText);
    const again = await runCli(['migrate'], env, cwd);
    expect(JSON.parse(again.stdout).data).toMatchObject({ applied: [], webhookSecretKey: keyFile, sealedSecrets: 0 });
    const sqlite = new BetterSqlite3(path, { readonly: true });
    const row = sqlite.prepare('SELECT secret FROM endpoints').get() as { secret: string };
    sqlite.close();
    expect(row.secret).toMatch(SEALED);
    expect(new SecretBox(parseSecretKey(keyText.trim())).open('wh_old0000000000000001', row.secret)).toBe(plaintext);
  });
});

describeEachDatabase('webhook secrets stored in clear by an earlier version', (kind) => {
  it('are sealed at start, once, and still sign what receivers verify', async () => {
    const t = await startTestApp(kind);
    const receiver = await startReceiver();
    let app = t.app;
    try {
      const { key } = await t.account();
      const inject = (method: 'POST' | 'GET', url: string, payload?: object) =>
        app.http.inject({ method, url, headers: bearer(key), ...(payload ? { payload } : {}) });
      const hook = json(
        await inject('POST', '/api/v1/webhooks', { name: 'old', url: `${receiver.url}/h`, airports: ['OTP'] }),
      ).data;
      // As an earlier version stored it: the secret itself.
      await app.db.kysely.updateTable('endpoints').set({ secret: hook.secret }).where('id', '=', hook.id).execute();
      await app.close();

      const restart = () => buildApp({ config: t.config, clock: t.clock, logger: createLogger('silent') });
      app = await restart();
      const read = () =>
        app.db.kysely.selectFrom('endpoints').select('secret').where('id', '=', hook.id).executeTakeFirstOrThrow();
      const sealed = (await read()).secret;
      expect(sealed).toMatch(SEALED);
      expect(sealed).not.toContain(hook.secret.slice(6));
      expect(json(await inject('POST', `/api/v1/webhooks/${hook.id}/test`)).data.delivered).toBe(true);
      const got = receiver.received[0]!;
      expect(verifyWebhook(got.raw, got.headers['x-flight-signature'], hook.secret).id).toBe(got.body.id);

      // Idempotent: the next start finds nothing to seal and leaves the sealed secret as it is.
      await app.close();
      app = await restart();
      expect((await read()).secret).toBe(sealed);
    } finally {
      await app.close();
      await t.database.drop();
      await receiver.close();
    }
  });
});

describe.runIf(DATABASE_KINDS.includes('postgres'))('a PostgreSQL start without the key', () => {
  it('refuses to start, naming FLIGHTSTATUS_WEBHOOK_SECRET_KEY, without a stack trace', async () => {
    const database = await createTestDatabase('postgres');
    try {
      // startService resolves once the service listens (then it is stopped at once and the test fails),
      // and rejects with its output when it exits before.
      const outcome = await startService({ DATABASE_URL: database.url, FLIGHTSTATUS_WEBHOOK_SECRET_KEY: '' }).then(
        async (service) => (await service.stop(), 'it started'),
        (error: Error) => error.message,
      );
      expect(outcome).toMatch(/^service exited with 1 before listening/);
      expect(outcome).toContain(
        'flightstatus: FLIGHTSTATUS_WEBHOOK_SECRET_KEY must be set when the database is PostgreSQL',
      );
      expect(outcome).toContain('openssl rand -hex 32');
      expect(outcome).not.toMatch(/\n\s+at /);
    } finally {
      await database.drop();
    }
  });
});
