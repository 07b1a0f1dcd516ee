import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, ENVIRONMENT, loadConfig } from './config.js';

/** The problems loadConfig names for `env`, none when it loads. */
function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    return (error as ConfigError).problems;
  }
}

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.host).toBe('127.0.0.1');
    expect(config.database).toMatchObject({ kind: 'sqlite', url: 'sqlite:./data/flightstatus.db' });
    expect(config.database.kind === 'sqlite' && config.database.path).toMatch(/\/data\/flightstatus\.db$/);
    expect(config.adminToken).toBeNull();
    expect(config.logLevel).toBe('info');
  });

  it('reads PostgreSQL URLs and sqlite paths', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@db.example:5432/fs' }).database).toEqual({
      kind: 'postgres',
      url: 'postgres://u:p@db.example:5432/fs',
      poolSize: 10,
    });
    expect(loadConfig({ DATABASE_URL: 'postgresql://127.0.0.1/test' }).database.kind).toBe('postgres');
    expect(loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.db' }).database).toMatchObject({
      kind: 'sqlite',
      path: '/tmp/x.db',
    });
  });

  it('reads FLIGHTSTATUS_DB_POOL_SIZE for PostgreSQL: 2 to 100 connections; with SQLite it is ignored, with a warning when set', () => {
    const postgres = 'postgres://u@db.example:5432/fs';
    expect(loadConfig({ DATABASE_URL: postgres, FLIGHTSTATUS_DB_POOL_SIZE: '24' }).database).toEqual({
      kind: 'postgres',
      url: postgres,
      poolSize: 24,
    });
    for (const edge of ['2', '100'])
      expect(loadConfig({ DATABASE_URL: postgres, FLIGHTSTATUS_DB_POOL_SIZE: edge }).database).toMatchObject({
        poolSize: Number(edge),
      });
    for (const bad of ['0', '1', '101', '10.5', 'ten', '-3', '1e2']) {
      expect(() => loadConfig({ DATABASE_URL: postgres, FLIGHTSTATUS_DB_POOL_SIZE: bad }), bad).toThrow(
        `FLIGHTSTATUS_DB_POOL_SIZE must be an integer from 2 to 100 (got "${bad}")`,
      );
    }
    const sqlite = loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.db', FLIGHTSTATUS_DB_POOL_SIZE: '30' });
    expect(sqlite.database).not.toHaveProperty('poolSize');
    expect(sqlite.warnings).toEqual([expect.stringMatching(/^FLIGHTSTATUS_DB_POOL_SIZE=30 has no effect with SQLite/)]);
    expect(loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.db' }).warnings).toEqual([]);
  });

  it('names every bad setting at once, without leaking a password', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({
        PORT: '99999',
        DATABASE_URL: 'mysql://root:hunter2@x/db',
        LOG_LEVEL: 'loud',
        FLIGHTSTATUS_BODY_LIMIT: '12',
      });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems).toHaveLength(4);
    expect(error!.message).toMatch(/PORT must be an integer from 0 to 65535 \(got "99999"\)/);
    expect(error!.message).toMatch(/DATABASE_URL must start with sqlite: or postgres:\/\//);
    expect(error!.message).not.toMatch(/hunter2/);
    expect(error!.message).toMatch(/LOG_LEVEL must be one of/);
    expect(error!.message).toMatch(/FLIGHTSTATUS_BODY_LIMIT must be a byte count/);
  });

  it('accepts a short admin token with a warning that never repeats it', () => {
    const config = loadConfig({ FLIGHTSTATUS_ADMIN_TOKEN: 'letmein' });
    expect(config.adminToken).toBe('letmein');
    expect(config.warnings).toEqual([expect.stringMatching(/only 7 characters/)]);
    expect(config.warnings.join()).not.toContain('letmein');
    expect(loadConfig({ FLIGHTSTATUS_ADMIN_TOKEN: 'x'.repeat(32) }).warnings).toEqual([]);
  });

  it('reads FLIGHTSTATUS_PUBLIC_URL as an absolute http(s) URL without its trailing slash, and refuses others', () => {
    expect(loadConfig({}).publicUrl).toBeNull();
    expect(loadConfig({ FLIGHTSTATUS_PUBLIC_URL: 'https://api.example.com/' }).publicUrl).toBe(
      'https://api.example.com',
    );
    expect(loadConfig({ FLIGHTSTATUS_PUBLIC_URL: 'http://192.168.1.20:8080' }).publicUrl).toBe(
      'http://192.168.1.20:8080',
    );
    expect(loadConfig({ FLIGHTSTATUS_PUBLIC_URL: 'https://example.com/flights/' }).publicUrl).toBe(
      'https://example.com/flights',
    );
    for (const bad of [
      'api.example.com',
      'ftp://example.com',
      'https://example.com/?a=1',
      'https://user:pw@example.com',
    ]) {
      expect(() => loadConfig({ FLIGHTSTATUS_PUBLIC_URL: bad }), bad).toThrow(
        /FLIGHTSTATUS_PUBLIC_URL must be an absolute http:\/\/ or https:\/\/ URL/,
      );
    }
    expect(() => loadConfig({ FLIGHTSTATUS_PUBLIC_URL: 'https://user:hunter2@example.com' })).toThrow(
      /^(?![\s\S]*hunter2)/,
    );
  });

  it('reads FLIGHTSTATUS_SIGNUP_PLAN: a plan for dashboard sign-ups, or off', () => {
    expect(loadConfig({}).dashboard.signupPlan).toEqual({ included: 1000, overage: false });
    expect(loadConfig({ FLIGHTSTATUS_SIGNUP_PLAN: '5000+overage' }).dashboard.signupPlan).toEqual({
      included: 5000,
      overage: true,
    });
    expect(loadConfig({ FLIGHTSTATUS_SIGNUP_PLAN: 'OFF' }).dashboard.signupPlan).toBeNull();
    for (const bad of ['lots', '-5', '10+free', '99999999999']) {
      expect(() => loadConfig({ FLIGHTSTATUS_SIGNUP_PLAN: bad }), bad).toThrow(
        /FLIGHTSTATUS_SIGNUP_PLAN must be "off", a number/,
      );
    }
  });

  it("reads following's cadence and budgets, refusing one account's budget above all accounts'", () => {
    expect(loadConfig({}).follow).toEqual({ intervalMs: 300_000, requestsPerHour: 600, accountRequestsPerHour: 120 });
    expect(
      loadConfig({
        FLIGHTSTATUS_FOLLOW_INTERVAL_SECONDS: '900',
        FLIGHTSTATUS_FOLLOW_REQUESTS_PER_HOUR: '50',
        FLIGHTSTATUS_FOLLOW_ACCOUNT_REQUESTS_PER_HOUR: '50',
      }).follow,
    ).toEqual({ intervalMs: 900_000, requestsPerHour: 50, accountRequestsPerHour: 50 });
    for (const bad of ['59', '3601', 'often'])
      expect(problems({ FLIGHTSTATUS_FOLLOW_INTERVAL_SECONDS: bad })).toEqual([
        `FLIGHTSTATUS_FOLLOW_INTERVAL_SECONDS must be seconds from 60 to 3600 (got "${bad}")`,
      ]);
    expect(
      problems({ FLIGHTSTATUS_FOLLOW_REQUESTS_PER_HOUR: '10', FLIGHTSTATUS_FOLLOW_ACCOUNT_REQUESTS_PER_HOUR: '11' }),
    ).toEqual([expect.stringMatching(/^FLIGHTSTATUS_FOLLOW_ACCOUNT_REQUESTS_PER_HOUR \(11\) must be at most/)]);
  });

  it('refuses a non-numeric port and an empty sqlite path', () => {
    expect(() => loadConfig({ PORT: '80a' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'sqlite:' })).toThrow(/needs a file path/);
  });
});

describe('loadConfig: sign-up limits and trusted proxies', () => {
  it('reads the sign-up limits, 5 per address and 100 in all per hour by default', () => {
    expect(loadConfig({}).dashboard.signupLimits).toEqual({ perAddress: 5, overall: 100 });
    expect(
      loadConfig({ FLIGHTSTATUS_SIGNUPS_PER_ADDRESS_PER_HOUR: '2', FLIGHTSTATUS_SIGNUPS_PER_HOUR: '1000' }).dashboard
        .signupLimits,
    ).toEqual({ perAddress: 2, overall: 1000 });
    for (const bad of ['0', '-1', '1.5', 'many', '1000001']) {
      expect(() => loadConfig({ FLIGHTSTATUS_SIGNUPS_PER_ADDRESS_PER_HOUR: bad }), bad).toThrow(
        /FLIGHTSTATUS_SIGNUPS_PER_ADDRESS_PER_HOUR must be an integer from 1 to 1000000/,
      );
      expect(() => loadConfig({ FLIGHTSTATUS_SIGNUPS_PER_HOUR: bad }), bad).toThrow(
        /FLIGHTSTATUS_SIGNUPS_PER_HOUR must be an integer from 1 to 1000000/,
      );
    }
  });

  it('reads FLIGHTSTATUS_TRUST_PROXY: off by default, else proxies’ addresses and ranges; never everyone or a hop count', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ FLIGHTSTATUS_TRUST_PROXY: 'OFF' }).trustProxy).toBe(false);
    expect(loadConfig({ FLIGHTSTATUS_TRUST_PROXY: '127.0.0.1' }).trustProxy).toEqual(['127.0.0.1']);
    expect(
      loadConfig({ FLIGHTSTATUS_TRUST_PROXY: '10.0.0.0/8, ::1, fd00::/8, loopback, uniquelocal' }).trustProxy,
    ).toEqual(['10.0.0.0/8', '::1', 'fd00::/8', 'loopback', 'uniquelocal']);
    for (const bad of ['true', '*', '1', '2', '10.0.0.0/33', '::1/129', 'proxy.example', '10.0.0.1/8/8', '10.0.0.1,']) {
      expect(() => loadConfig({ FLIGHTSTATUS_TRUST_PROXY: bad }), bad).toThrow(/FLIGHTSTATUS_TRUST_PROXY/);
    }
    expect(() => loadConfig({ FLIGHTSTATUS_TRUST_PROXY: '2' })).toThrow(/not a hop count/);
  });
});

it('.env.example lists every variable with its default', () => {
  const example = readFileSync(new URL('../.env.example', import.meta.url), 'utf8');
  for (const [name, value] of Object.entries(ENVIRONMENT)) {
    expect(example).toMatch(new RegExp(`^#? ?${name}=${value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, 'm'));
  }
});

describe('loadConfig: clock, providers, simulated world', () => {
  it('reads the clock, the providers and the simulated world’s settings', () => {
    const defaults = loadConfig({});
    expect(defaults.clock).toEqual({ kind: 'system' });
    expect(defaults.providers).toEqual(['sim']);
    expect(defaults.sim).toEqual({ seed: 'flightstatus', latency: {}, failures: {} });
    const custom = loadConfig({
      FLIGHTSTATUS_CLOCK: 'manual',
      FLIGHTSTATUS_CLOCK_START: '2026-03-01T06:00:00Z',
      FLIGHTSTATUS_PROVIDERS: ' SIM ',
      FLIGHTSTATUS_SIM_SEED: 'demo',
      FLIGHTSTATUS_SIM_LATENCY: 'flight=200, board=50-150',
      FLIGHTSTATUS_SIM_FAILURES: 'flight=0.5,aircraft=1',
    });
    expect(custom.clock).toEqual({ kind: 'manual', start: Date.UTC(2026, 2, 1, 6) });
    expect(custom.providers).toEqual(['sim']);
    expect(custom.sim).toEqual({
      seed: 'demo',
      latency: { flight: { min: 200, max: 200 }, board: { min: 50, max: 150 } },
      failures: { flight: 0.5, aircraft: 1 },
    });
    expect(loadConfig({ FLIGHTSTATUS_CLOCK: 'manual' }).clock).toEqual({ kind: 'manual', start: null });
  });

  it("reads each real provider's key, address and request budget; a listed provider needs its key", () => {
    const defaults = loadConfig({});
    expect(defaults.upstream.aerodatabox).toEqual({
      key: '',
      url: 'https://aerodatabox.p.rapidapi.com',
      requestsPerMinute: 30,
    });
    expect(defaults.upstream.aeroapi).toEqual({
      key: '',
      url: 'https://aeroapi.flightaware.com/aeroapi',
      requestsPerMinute: 10,
    });
    expect(loadConfig({ FLIGHTSTATUS_PROVIDERS: 'aeroapi', FLIGHTSTATUS_AEROAPI_KEY: 'fa' }).upstream.aeroapi.key).toBe(
      'fa',
    );
    expect(defaults.upstream.aviationstack).toEqual({
      key: '',
      url: 'https://api.aviationstack.com/v1',
      requestsPerMinute: 10,
    });
    expect(defaults.upstream.opensky).toEqual({
      clientId: '',
      clientSecret: '',
      url: 'https://opensky-network.org/api',
      authUrl: 'https://auth.opensky-network.org/auth/realms/opensky-network/protocol/openid-connect/token',
      requestsPerMinute: 5,
    });
    const real = loadConfig({
      FLIGHTSTATUS_PROVIDERS: 'aerodatabox,sim',
      FLIGHTSTATUS_AERODATABOX_KEY: 'k-123',
      FLIGHTSTATUS_AERODATABOX_URL: 'http://127.0.0.1:9999/',
      FLIGHTSTATUS_AERODATABOX_REQUESTS_PER_MINUTE: '120',
    });
    expect(real.providers).toEqual(['aerodatabox', 'sim']);
    expect(real.upstream.aerodatabox).toEqual({ key: 'k-123', url: 'http://127.0.0.1:9999', requestsPerMinute: 120 });
    expect(problems({ FLIGHTSTATUS_PROVIDERS: 'aerodatabox' })).toEqual([
      'FLIGHTSTATUS_AERODATABOX_KEY must be set: FLIGHTSTATUS_PROVIDERS lists aerodatabox',
    ]);
    expect(problems({ FLIGHTSTATUS_PROVIDERS: 'aerodatabox,aeroapi', FLIGHTSTATUS_AERODATABOX_KEY: 'k' })).toEqual([
      'FLIGHTSTATUS_AEROAPI_KEY must be set: FLIGHTSTATUS_PROVIDERS lists aeroapi',
    ]);
    expect(problems({ FLIGHTSTATUS_PROVIDERS: 'aviationstack,opensky', FLIGHTSTATUS_OPENSKY_CLIENT_ID: 'me' })).toEqual(
      [
        'FLIGHTSTATUS_AVIATIONSTACK_KEY must be set: FLIGHTSTATUS_PROVIDERS lists aviationstack',
        'FLIGHTSTATUS_OPENSKY_CLIENT_SECRET must be set: FLIGHTSTATUS_PROVIDERS lists opensky',
      ],
    );
    expect(
      problems({ FLIGHTSTATUS_AERODATABOX_URL: 'ftp://mirror', FLIGHTSTATUS_AERODATABOX_REQUESTS_PER_MINUTE: '0' }),
    ).toEqual([
      'FLIGHTSTATUS_AERODATABOX_URL must be an http:// or https:// URL without credentials, query or fragment (got "ftp://mirror")',
      'FLIGHTSTATUS_AERODATABOX_REQUESTS_PER_MINUTE must be an integer from 1 to 100000 (got "0")',
    ]);
    // A key in the URL would reach logs and error messages: refused.
    expect(problems({ FLIGHTSTATUS_AERODATABOX_URL: 'https://user:secret@aerodatabox.p.rapidapi.com' })).toEqual([
      'FLIGHTSTATUS_AERODATABOX_URL must be an http:// or https:// URL without credentials, query or fragment (got a URL with credentials)',
    ]);
  });

  it('names each bad clock, provider or fault setting', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({
        FLIGHTSTATUS_CLOCK: 'manual',
        FLIGHTSTATUS_CLOCK_START: 'next tuesday',
        FLIGHTSTATUS_PROVIDERS: 'sim,flightaware',
        FLIGHTSTATUS_SIM_LATENCY: 'flight=fast',
        FLIGHTSTATUS_SIM_FAILURES: 'lookup=0.5,board=2',
      });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error!.problems).toEqual([
      'FLIGHTSTATUS_CLOCK_START must be an ISO 8601 time with its zone, such as 2026-03-01T06:00:00Z (got "next tuesday")',
      'FLIGHTSTATUS_PROVIDERS names an unknown provider "flightaware" (known: sim, aerodatabox, aeroapi, aviationstack, opensky)',
      'FLIGHTSTATUS_SIM_LATENCY: flight needs milliseconds or a range such as 50-200 (got "fast")',
      'FLIGHTSTATUS_SIM_FAILURES: "lookup" is not a call kind (use flight, board, aircraft, rotation, e.g. flight=200)',
      'FLIGHTSTATUS_SIM_FAILURES: board needs a share from 0 to 1 (got "2")',
    ]);
    expect(() => loadConfig({ FLIGHTSTATUS_CLOCK_START: '2026-03-01T06:00:00Z' })).toThrow(
      /also set FLIGHTSTATUS_CLOCK=manual/,
    );
    // A time without its zone would mean different instants on different machines; a date is its UTC midnight.
    for (const start of ['2026-03-01T06:00:00', '2026-02-30T06:00:00Z', '2026-03-01 06:00Z']) {
      expect(() => loadConfig({ FLIGHTSTATUS_CLOCK: 'manual', FLIGHTSTATUS_CLOCK_START: start }), start).toThrow(
        /with its zone/,
      );
    }
    expect(loadConfig({ FLIGHTSTATUS_CLOCK: 'manual', FLIGHTSTATUS_CLOCK_START: '2026-03-01' }).clock).toEqual({
      kind: 'manual',
      start: Date.parse('2026-03-01T00:00:00Z'),
    });
    expect(
      loadConfig({ FLIGHTSTATUS_CLOCK: 'manual', FLIGHTSTATUS_CLOCK_START: '2026-03-01T08:00+02:00' }).clock,
    ).toEqual({
      kind: 'manual',
      start: Date.parse('2026-03-01T06:00:00Z'),
    });
    expect(() => loadConfig({ FLIGHTSTATUS_CLOCK: 'fast' })).toThrow(/FLIGHTSTATUS_CLOCK must be system or manual/);
    expect(() => loadConfig({ FLIGHTSTATUS_PROVIDERS: 'sim,sim' })).toThrow(/names a provider twice/);
  });
});

describe('billing settings', () => {
  it('reads the job, grace, retries and gateway; Stripe needs its key and the key needs stripe', () => {
    const defaults = loadConfig({}).billing;
    expect(defaults).toEqual({
      intervalMs: 3_600_000,
      graceMs: 3_600_000,
      retryDelaysMs: [1, 3, 5].map((d) => d * 86_400_000),
      gateway: 'manual',
      stripe: null,
    });
    const stripe = loadConfig({
      FLIGHTSTATUS_PAYMENT_GATEWAY: 'stripe',
      FLIGHTSTATUS_STRIPE_KEY: 'sk_test_abc123',
      FLIGHTSTATUS_STRIPE_WEBHOOK_SECRET: 'whsec_x1',
      FLIGHTSTATUS_BILLING_RETRY_DAYS: '2, 4',
    }).billing;
    expect(stripe).toMatchObject({
      gateway: 'stripe',
      stripe: { key: 'sk_test_abc123', url: 'https://api.stripe.com', webhookSecret: 'whsec_x1' },
      retryDelaysMs: [2 * 86_400_000, 4 * 86_400_000],
    });
    expect(loadConfig({ FLIGHTSTATUS_PAYMENT_GATEWAY: 'simulated' }).billing.gateway).toBe('simulated');
    expect(problems({ FLIGHTSTATUS_PAYMENT_GATEWAY: 'stripe' })).toEqual([
      'FLIGHTSTATUS_PAYMENT_GATEWAY=stripe needs FLIGHTSTATUS_STRIPE_KEY',
    ]);
    expect(problems({ FLIGHTSTATUS_STRIPE_KEY: 'sk_test_abc' })[0]).toMatch(/set FLIGHTSTATUS_PAYMENT_GATEWAY=stripe/);
    expect(problems({ FLIGHTSTATUS_PAYMENT_GATEWAY: 'stripe', FLIGHTSTATUS_STRIPE_KEY: 'pk_live_abc' })[0]).toMatch(
      /secret or restricted key/,
    );
    expect(problems({ FLIGHTSTATUS_BILLING_RETRY_DAYS: '3,1' })[0]).toMatch(/increasing whole days/);
    expect(problems({ FLIGHTSTATUS_BILLING_GRACE_MINUTES: '-5', FLIGHTSTATUS_PAYMENT_GATEWAY: 'paypal' })).toHaveLength(
      2,
    );
    // The key never appears in a problem.
    expect(
      problems({ FLIGHTSTATUS_PAYMENT_GATEWAY: 'stripe', FLIGHTSTATUS_STRIPE_KEY: 'sk_live_secret!!' }).join(' '),
    ).not.toContain('secret!!');
  });
});

describe('roles and retention', () => {
  it('reads FLIGHTSTATUS_ROLE and FLIGHTSTATUS_RETENTION_DAYS, refusing what they are not', () => {
    expect(loadConfig({})).toMatchObject({ role: 'all', retentionMs: 30 * 86_400_000 });
    expect(loadConfig({ FLIGHTSTATUS_ROLE: 'worker', FLIGHTSTATUS_RETENTION_DAYS: '7' })).toMatchObject({
      role: 'worker',
      retentionMs: 7 * 86_400_000,
    });
    expect(problems({ FLIGHTSTATUS_ROLE: 'scheduler' })).toEqual([
      'FLIGHTSTATUS_ROLE must be one of all, api, worker (got "scheduler")',
    ]);
    expect(problems({ FLIGHTSTATUS_RETENTION_DAYS: '0' })).toEqual([
      'FLIGHTSTATUS_RETENTION_DAYS must be days from 1 to 3650 (got "0")',
    ]);
  });
});
