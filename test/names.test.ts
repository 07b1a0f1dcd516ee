// Names shown back to people (accounts, API keys, webhook endpoints, plans) refuse bidirectional
// controls and control characters wherever they come in: the operator API, the customer API, the
// dashboard's forms and the CLI. A U+202E in a name makes it display as other text.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { nameProblem } from '../src/names.js';
import { describeEachDatabase, itWithoutDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';
import { Visitor, PASSWORD, text } from './helpers/dashboard.js';
import { runCli } from './helpers/process.js';

const BIDI = [
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200e',
  '\u200f',
  '\u061c',
];
/** A name that shows as "invoice.pdf" but is "invoice‮fdp.exe"-style text. */
const spoof = (control: string) => `acme${control}moc.knab`;

it('the check refuses every bidirectional control and control character, and nothing else', () => {
  for (const control of BIDI) {
    const code = control.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    expect(nameProblem('name', spoof(control))).toBe(
      `name must not contain bidirectional control characters (U+${code} at character 5): they make a name display as other text`,
    );
  }
  for (const control of ['\u0000', '\n', '\u001b', '\u007f', '\u0085'])
    expect(nameProblem('name', `a${control}b`)).toBe('name must not contain control characters');
  // Right-to-left text itself, accents, emoji and joiners are names like any other.
  for (const fine of ['Acme Claims', 'שלום עולם', 'مرحبا', 'Zoë & Søn', 'claims 🚀', 'a\u200db'])
    expect(nameProblem('name', fine)).toBeNull();
});

describeEachDatabase('names with bidirectional controls', (kind) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp(kind);
    ({ key } = await t.account({ plan: { included: 10 } }));
  });
  afterAll(() => t?.close());

  const refusedFor = (field: string) => ({
    success: false,
    code: 'invalid_request',
    message: expect.stringMatching(
      new RegExp(`^${field} must not contain bidirectional control characters \\(U\\+202E`),
    ),
  });

  it('refuses them in account names over the operator API', async () => {
    const response = await t.admin('POST', '/api/admin/v1/accounts', {
      slug: 'spoof',
      name: spoof('\u202e'),
      plan: { included: 10, overage: false },
    });
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual(refusedFor('name'));
    expect((await t.admin('GET', '/api/admin/v1/accounts/spoof')).statusCode).toBe(404);
    expect(
      (
        await t.admin('POST', '/api/admin/v1/accounts', {
          slug: 'plain',
          name: 'Acme Claims',
          plan: { included: 10, overage: false },
        })
      ).statusCode,
    ).toBe(201);
  });

  it('refuses them in key names over the operator API', async () => {
    const { slug } = await t.account();
    for (const control of BIDI) {
      const response = await t.admin('POST', `/api/admin/v1/accounts/${slug}/keys`, { name: spoof(control) });
      expect(response.statusCode, JSON.stringify(control)).toBe(400);
      expect(json(response).message).toMatch(/^name must not contain bidirectional control characters/);
    }
    expect((await t.admin('POST', `/api/admin/v1/accounts/${slug}/keys`, { name: 'production' })).statusCode).toBe(201);
  });

  it('refuses them in webhook endpoint names, on create and on rename', async () => {
    const api = (method: 'POST' | 'PATCH', url: string, payload: unknown) =>
      t.app.http.inject({ method, url, headers: bearer(key), payload: payload as object });
    const refused = await api('POST', '/api/v1/webhooks', {
      name: spoof('\u202e'),
      url: 'http://127.0.0.1:9/hooks',
      airports: ['OTP'],
    });
    expect(refused.statusCode).toBe(400);
    expect(json(refused)).toEqual(refusedFor('name'));
    const created = await api('POST', '/api/v1/webhooks', {
      name: 'claims',
      url: 'http://127.0.0.1:9/hooks',
      airports: ['OTP'],
    });
    expect(created.statusCode).toBe(201);
    const renamed = await api('PATCH', `/api/v1/webhooks/${json(created).data.id}`, { name: spoof('\u2067') });
    expect(renamed.statusCode).toBe(400);
    expect(json(renamed).message).toMatch(/^name must not contain bidirectional control characters \(U\+2067/);
  });

  it('refuses them in plan names over the operator API', async () => {
    const plan = (name: string) => ({
      id: 'starter',
      name,
      currency: 'EUR',
      monthlyFee: '0',
      included: 10,
      overage: false,
    });
    const response = await t.admin('POST', '/api/admin/v1/plans', plan(spoof('\u202e')));
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual(refusedFor('name'));
    expect((await t.admin('POST', '/api/admin/v1/plans', plan('Starter'))).statusCode).toBe(201);
  });

  it('refuses them in the dashboard’s sign-up and key forms, on the field', async () => {
    const v = new Visitor(t);
    await v.get('/dashboard/sign-up');
    const signUp = await v.post('/dashboard/sign-up', {
      accountName: spoof('\u202e'),
      email: 'eve@example.com',
      password: PASSWORD,
    });
    expect(signUp.statusCode).toBe(400);
    expect(signUp.body).toMatch(
      /id="f-accountName-error">Account name must not contain bidirectional control characters \(U\+202E/,
    );

    await v.signUp('ana@example.com');
    await v.get('/dashboard/keys');
    const keyForm = await v.post('/dashboard/keys', { name: spoof('\u202e') });
    expect(keyForm.statusCode).toBe(400);
    expect(text(keyForm)).toContain('The key name must not contain bidirectional control characters (U+202E');
    expect(keyForm.body).not.toContain('id="new-key"');
  });
});

itWithoutDatabase(
  'refuses them in the CLI’s account, key and plan names, with the same message',
  async () => {
    const t = await startTestApp('sqlite');
    try {
      const env = { DATABASE_URL: t.database.url };
      const cli = (...args: string[]) => runCli(args, env, undefined, 20_000);
      const account = await cli('accounts', 'create', '--slug', 'spoof', '--name', spoof('\u202e'), '--included', '10');
      expect(account.code).not.toBe(0);
      expect(account.stderr).toMatch(/name must not contain bidirectional control characters \(U\+202E/);
      expect((await t.admin('GET', '/api/admin/v1/accounts/spoof')).statusCode).toBe(404);
      const { slug } = await t.account();
      const keyRun = await cli('keys', 'create', '--account', slug, '--name', spoof('\u2066'));
      expect(keyRun.code).not.toBe(0);
      expect(keyRun.stderr).toMatch(/name must not contain bidirectional control characters \(U\+2066/);
      const plan = await cli(
        'plans',
        'create',
        '--id',
        'pro',
        '--name',
        spoof('\u200f'),
        '--currency',
        'EUR',
        '--fee',
        '1',
        '--included',
        '1',
      );
      expect(plan.code).not.toBe(0);
      expect(plan.stderr).toMatch(/name must not contain bidirectional control characters \(U\+200F/);
    } finally {
      await t.close();
    }
  },
  60_000,
);
