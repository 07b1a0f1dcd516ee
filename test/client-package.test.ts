// The client package (clients/node) as a customer gets it: `npm pack ./clients/node` builds the
// tarball, an empty project installs it, and a program of that project (clients/node/test/consumer.mjs)
// imports it by name, calls this test service's API on a real port with a real key and receives real
// signed deliveries across a secret rotation; a TypeScript file (consumer.ts) is checked against the
// declarations the tarball ships. The package's generated types must be what the service's OpenAPI
// document generates today.
//
// The empty project installs offline: its lockfile pins the package's dependencies as the root's
// package-lock.json does (the root has them as devDependencies, so `npm ci` put them in npm's cache),
// which also proves the package declares every dependency it imports.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groundTruth } from '../src/sim/index.js';
import { CLIENT_TYPES_PATH, clientTypes } from '../scripts/client-types.mjs';
import { json, startTestApp, type TestApp } from './helpers/app.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PACKAGE = join(ROOT, 'clients', 'node');
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const rootPackage = readJson(join(ROOT, 'package.json'));
const clientPackage = readJson(join(PACKAGE, 'package.json'));

/** This process's environment without what an outer `npm test` says about the root package (a child npm must not act on the root). */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^npm_(package_|lifecycle_|command$|config_local_prefix$)/.test(name),
    ),
  );
  return { ...env, ...extra };
}

const exec = promisify(execFile);
async function run(command: string, args: string[], cwd: string, env = childEnv()): Promise<string> {
  try {
    return (await exec(command, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}${stderr ?? ''}`, { cause: error });
  }
}

type LockEntry = { dependencies?: Record<string, string>; [field: string]: unknown };

/**
 * The root lockfile's entries for `names` and everything they depend on, found as Node finds a
 * dependency (the dependent's own node_modules, then each one above), without the root's dev flags.
 */
function lockedClosure(names: string[]): Record<string, LockEntry> {
  const packages = readJson(join(ROOT, 'package-lock.json')).packages as Record<string, LockEntry>;
  const found: Record<string, LockEntry> = {};
  const visit = (from: string, name: string): void => {
    for (
      let dir = from;
      ;
      dir = dir.includes('/node_modules/') ? dir.slice(0, dir.lastIndexOf('/node_modules/')) : ''
    ) {
      const path = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
      const entry = packages[path];
      if (entry) {
        if (path in found) return;
        const { dev: _dev, devOptional: _devOptional, ...kept } = entry;
        found[path] = kept;
        for (const dependency of Object.keys(entry.dependencies ?? {})) visit(path, dependency);
        return;
      }
      if (dir === '') throw new Error(`${name} is not in package-lock.json: add it to the root's devDependencies`);
    }
  };
  for (const name of names) visit('', name);
  return found;
}

describe('the client package, packed and installed into an empty project', () => {
  let t: TestApp;
  let work: string;
  let project: string;
  let packed: { filename: string; version: string; files: { path: string }[] };
  let key: string;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite', { pollIntervalMs: 365 * 86_400_000 });
    await t.app.http.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.http.server.address() as AddressInfo).port}`;
    key = (await t.account()).key;
    work = mkdtempSync(join(tmpdir(), 'flightstatus-client-'));

    // As the package's README says, from the repository's root: prepack compiles it first.
    const out = await run('npm', ['pack', './clients/node', '--pack-destination', work, '--json'], ROOT);
    packed = JSON.parse(out.slice(out.indexOf('[')))[0];

    project = join(work, 'customer');
    mkdirSync(project);
    const dependencies = { [clientPackage.name]: `file:../${packed.filename}` };
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'customer', private: true, type: 'module', dependencies }, null, 2),
    );
    const lock = {
      name: 'customer',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'customer', dependencies },
        [`node_modules/${clientPackage.name}`]: {
          version: packed.version,
          resolved: `file:../${packed.filename}`,
          dependencies: clientPackage.dependencies,
        },
        ...lockedClosure(Object.keys(clientPackage.dependencies ?? {})),
      },
    };
    writeFileSync(join(project, 'package-lock.json'), JSON.stringify(lock, null, 2));
    await run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], project);
    for (const file of ['consumer.mjs', 'consumer.ts']) copyFileSync(join(PACKAGE, 'test', file), join(project, file));
  }, 60_000);

  afterAll(async () => {
    if (work) rmSync(work, { recursive: true, force: true });
    await t?.close();
  });

  it("has the types the service's OpenAPI document generates today (npm run client:types writes them)", async () => {
    const document = json(await t.get('/api/v1/openapi.json'));
    const committed = readFileSync(join(ROOT, CLIENT_TYPES_PATH), 'utf8');
    const generated = await clientTypes(document);
    expect(
      generated === committed,
      `${CLIENT_TYPES_PATH} is not what the OpenAPI document generates: run npm run client:types and commit it`,
    ).toBe(true);
  });

  it("packs compiled JS, declarations and the README at the service's version, depending on what the root locks", () => {
    expect(packed.version).toBe(rootPackage.version);
    expect(packed.files.map((f) => f.path).sort()).toEqual([
      'README.md',
      'dist/generated/openapi.d.ts',
      'dist/generated/openapi.js',
      'dist/index.d.ts',
      'dist/index.js',
      'dist/verify.d.ts',
      'dist/verify.js',
      'package.json',
    ]);
    // The package compiles against the root's copies of its dependencies, and installs them from the
    // root's lock: the same ranges.
    for (const [name, range] of Object.entries(clientPackage.dependencies as Record<string, string>)) {
      expect(rootPackage.devDependencies[name], name).toBe(range);
    }
    expect(clientPackage.engines).toEqual(rootPackage.engines);
  });

  it('calls the API with a key and verifies real deliveries with the old secret, the new one and both, rejecting forgeries', async () => {
    const sim = t.app.sim!;
    const delayed = groundTruth(sim, '2026-02-20', { status: 'delayed' })[0]!;
    const query = { flightNumber: delayed.flightNumber, flightDate: '2026-02-20', origin: delayed.origin };
    const out = await run(
      process.execPath,
      ['consumer.mjs'],
      project,
      childEnv({ FLIGHTSTATUS_URL: baseUrl, FLIGHTSTATUS_KEY: key, FLIGHT_QUERY: JSON.stringify(query) }),
    );
    const report = JSON.parse(out);
    // The package resolved from the project's own node_modules, and its dependencies with it.
    expect(fileURLToPath(report.resolved)).toBe(
      join(project, 'node_modules', '@flightstatus', 'client', 'dist', 'index.js'),
    );
    expect(existsSync(join(project, 'node_modules', 'openapi-fetch', 'package.json'))).toBe(true);
    expect(report.exports).toEqual({ sameVerifier: true });

    expect(report.account).toMatchObject({ status: 200, accountSlug: expect.stringMatching(/^acct-/) });
    expect(report.airports.status).toBe(200);
    expect(report.airports.count).toBe(report.airports.iatas.length);
    expect(report.airports.iatas).toContain('OTP');
    expect(report.flight).toMatchObject({ status: 200, flightNumber: delayed.flightNumber, selected: 'delayed' });
    expect(Number(report.flight.remaining)).toBe(Number(report.account.remaining) - 1);
    expect(report.missing).toEqual({ status: 404, data: null, code: 'not_found' });

    const delivered = { delivered: true, statusCode: 204, type: 'webhook.test', rejected: null };
    expect(report.before).toEqual({ ...delivered, v1: 1 });
    expect(report.rotated).toMatchObject({ changed: true, previousSecretUntil: expect.any(String) });
    expect(report.during).toEqual({
      oldOnly: { ...delivered, v1: 2 },
      newOnly: { ...delivered, v1: 2 },
      both: { ...delivered, v1: 2 },
    });
    expect(report.forged.madeUp).toMatchObject({ status: 400, text: expect.stringMatching(/does not match/) });
    expect(report.forged.changedBody).toMatchObject({ status: 400, text: expect.stringMatching(/does not match/) });
    expect(report.forged.thrown).toEqual({ isVerificationError: true, name: 'WebhookVerificationError' });
  });

  it("type-checks a customer's TypeScript against the declarations it ships, and refuses mistyped calls", async () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023'],
          strict: true,
          noEmit: true,
          // The package's declarations and openapi-fetch's are checked too, not taken on trust.
          skipLibCheck: false,
          // @types/node, which a Node project has: the root's copy.
          typeRoots: [join(ROOT, 'node_modules', '@types')],
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    );
    await run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], project);
  });
});
