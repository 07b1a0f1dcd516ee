// `flightstatus evidence verify` and `evidence key` against a real service process, and the openssl
// commands of docs/evidence.md run as written there (skipped, and said so, where openssl is absent).
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimWorld, groundTruth } from '../src/sim/index.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';
import { runCli, scratchDir, startService, type ServiceProcess } from './helpers/process.js';

const DATE = '2026-02-20';
const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
const OPENSSL = has('openssl');

describe('flightstatus evidence, against a running service', () => {
  let database: TestDatabase;
  let service: ServiceProcess;
  let env: Record<string, string>;
  const dir = scratchDir();
  const file = join(dir, 'evidence.pdf');

  beforeAll(async () => {
    database = await createTestDatabase('sqlite', { migrated: true });
    env = {
      DATABASE_URL: database.url,
      FLIGHTSTATUS_CLOCK: 'manual',
      FLIGHTSTATUS_CLOCK_START: '2026-03-01T12:00:00Z',
      LOG_LEVEL: 'warn',
    };
    service = await startService(env);
    await runCli(['accounts', 'create', '--slug', 'claims', '--included', '100'], env);
    const key = JSON.parse((await runCli(['keys', 'create', '--account', 'claims', '--name', 'k'], env)).stdout).data
      .key as string;
    const flight = groundTruth(createSimWorld('flightstatus'), DATE).find(
      (f) => f.operation === 'passenger' && f.status === 'cancelled',
    )!;
    const fetchPdf = async () => {
      const response = await fetch(
        `${service.url}/api/v1/flights/evidence?flightNumber=${flight.flightNumber}&flightDate=${DATE}&origin=${flight.origin}`,
        {
          headers: { authorization: `Bearer ${key}` },
        },
      );
      expect(response.status).toBe(200);
      return Buffer.from(await response.arrayBuffer());
    };
    const pdf = await fetchPdf();
    writeFileSync(file, pdf);
    // The first document of a process reads its fonts from their files, the next ones share them
    // parsed: the same record at the same time (a manual clock) is still the same bytes.
    expect((await fetchPdf()).equals(pdf)).toBe(true);
  }, 60_000);
  afterAll(async () => {
    await service?.stop('SIGKILL');
    await database?.drop();
  });

  it('verifies a document with the key from the service or from a file, and names what fails on an altered one', async () => {
    const fromService = await runCli(['evidence', 'verify', file, '--url', service.url], env, dir);
    expect(fromService.code, fromService.stderr).toBe(0);
    const checked = JSON.parse(fromService.stdout);
    expect(checked).toMatchObject({
      success: true,
      data: {
        valid: true,
        file,
        document: { signature: 'valid' },
        record: { hash: 'valid', signature: 'valid', status: 'cancelled', flightDate: DATE },
        pdfSignature: {
          signature: 'valid',
          coversFile: true,
          signer: 'Flight Status Service evidence',
          subFilter: 'ETSI.CAdES.detached',
        },
      },
    });
    expect(checked.data.key.fingerprint).toBe(checked.data.document.signedBy);

    const pem = await runCli(['evidence', 'key', '--url', service.url], env, dir);
    expect(pem.code).toBe(0);
    expect(pem.stdout).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=]+\n-----END PUBLIC KEY-----\n$/);
    expect(pem.stderr).toContain(checked.data.key.fingerprint);
    writeFileSync(join(dir, 'evidence-key.pem'), pem.stdout);
    const offline = await runCli(['evidence', 'verify', file, '--key', join(dir, 'evidence-key.pem')], env, dir);
    expect(offline.code).toBe(0);

    const bytes = readFileSync(file);
    const altered = Buffer.from(bytes);
    altered[2000] = altered[2000]! ^ 0x01;
    writeFileSync(join(dir, 'altered.pdf'), altered);
    const failed = await runCli(['evidence', 'verify', join(dir, 'altered.pdf'), '--url', service.url], env, dir);
    expect(failed.code).toBe(1);
    expect(failed.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(failed.stderr).toMatch(
      /^flightstatus: .*altered\.pdf is not valid evidence: the document signature does not verify/,
    );
    expect(JSON.parse(failed.stdout)).toMatchObject({
      success: false,
      data: { valid: false, document: { signature: 'invalid' }, record: { hash: 'valid' } },
    });

    // Another key: the message names the key the file was signed with.
    writeFileSync(
      join(dir, 'other.pem'),
      generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' }),
    );
    const wrongKey = await runCli(['evidence', 'verify', file, '--key', join(dir, 'other.pem')], env, dir);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain(`the file names key ${checked.data.key.fingerprint}`);

    writeFileSync(join(dir, 'plain.pdf'), bytes.subarray(0, bytes.indexOf('%FlightStatus-Evidence')));
    const unsigned = await runCli(['evidence', 'verify', join(dir, 'plain.pdf'), '--url', service.url], env, dir);
    expect(unsigned.code).toBe(1);
    expect(unsigned.stderr).toMatch(/the file has no "%FlightStatus-Signature: ed25519 …" line/);
    const usage = await runCli(['evidence', 'verify', file, '--url', service.url, '--key', 'x.pem'], env, dir);
    expect(usage.code).toBe(2);
  }, 60_000);

  it.skipIf(!OPENSSL)(
    'checks with the openssl commands of docs/evidence.md, as written there (needs openssl on the PATH)',
    async () => {
      const docs = readFileSync(new URL('../docs/evidence.md', import.meta.url), 'utf8');
      const block = /test\/evidence-cli\.test\.ts runs the block below[^\n]*\n```sh\n([\s\S]*?)```/.exec(docs)![1]!;
      // The service's address in place of the placeholder; without curl, the key is written here instead.
      let script = block.replaceAll('https://SERVICE', service.url);
      if (!has('curl')) {
        script = script.replace(/^curl .*$/m, '');
        writeFileSync(
          join(dir, 'evidence-key.pem'),
          await (await fetch(`${service.url}/api/v1/evidence/key?format=pem`)).text(),
        );
      }
      const run = (target: string) =>
        spawnSync('sh', ['-c', `set -e\n${script.replace('FILE=evidence.pdf', `FILE=${target}`)}`], {
          cwd: dir,
          encoding: 'utf8',
        });
      const good = run('evidence.pdf');
      expect(good.status, good.stderr).toBe(0);
      expect(good.stdout.match(/Signature Verified Successfully/g)).toHaveLength(2);
      const [digest, stated] = good.stdout.split('\n').filter((line) => /[0-9a-f]{64}/.test(line));
      expect(digest).toMatch(new RegExp(`= ${stated}$`));
      expect(JSON.parse(readFileSync(join(dir, 'record.json'), 'utf8')).selected.status).toBe('cancelled');

      const altered = Buffer.from(readFileSync(join(dir, 'evidence.pdf')));
      altered[2000] = altered[2000]! ^ 0x01;
      writeFileSync(join(dir, 'altered.pdf'), altered);
      const bad = run('altered.pdf');
      expect(bad.status).not.toBe(0);
      expect(bad.stdout + bad.stderr).toMatch(/Signature Verification Failure/);
    },
  );
  if (!OPENSSL) it('skips the openssl commands: openssl is not on the PATH of this machine', () => {});
});
