// The evidence PDF's standard signature (docs/evidence.md, "The PDF signature"), checked by verifiers
// that are not ours: OpenSSL's CMS over the byte range, cut with the shell commands the docs give,
// and poppler's pdfsig (what PDF readers on Linux use), required in CI (FLIGHTSTATUS_REQUIRE_PDFSIG,
// set by .ci/run, which installs poppler-utils). A byte changed or an update appended is detected by
// each, and by `flightstatus evidence verify`'s checks. The default certificate is self-signed from
// the evidence key; an operator's PKCS#12 (made here with openssl, RSA and EC) signs in its place.
import { execFileSync, spawnSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig, parsePkcs12 } from '../src/config.js';
import { checkPdfSignature, selfSignedSigner, verifyEvidence } from '../src/evidence/index.js';
import { cadesDetached } from '../src/evidence/pades.js';
import { groundTruth } from '../src/sim/index.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';
import { describeEachDatabase, describeWithoutDatabase, itWithoutDatabase } from './helpers/databases.js';

const DATE = '2026-02-20';
const dir = mkdtempSync(join(tmpdir(), 'pdfsig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hasPdfsig = spawnSync('pdfsig', ['-v']).error === undefined;
if (!hasPdfsig && process.env.FLIGHTSTATUS_REQUIRE_PDFSIG === '1')
  throw new Error('pdfsig (poppler-utils) is required (FLIGHTSTATUS_REQUIRE_PDFSIG=1) but not installed');

function pdfsig(pdf: Buffer, name: string): string {
  const file = join(dir, name);
  writeFileSync(file, pdf);
  // pdfsig exits 0 when every signature is valid, non-zero otherwise: the output says which.
  const run = spawnSync('pdfsig', [file], { encoding: 'utf8' });
  return `${run.stdout}${run.stderr}`;
}

/** The docs' OpenSSL check of the PDF signature, run as written there (docs/evidence.md, step 3). */
function opensslCms(pdf: Buffer, name: string): { ok: boolean; output: string } {
  const file = join(dir, name);
  writeFileSync(file, pdf);
  const docs = readFileSync(new URL('../docs/evidence.md', import.meta.url), 'utf8');
  const block =
    /<!-- test\/evidence-pdf-signature\.test\.ts runs the block below as it is written here\. -->\n```sh\n([\s\S]*?)```/.exec(
      docs,
    )![1]!;
  const run = spawnSync('sh', ['-ec', block.replace(/^FILE=.*$/m, `FILE=${file}`)], { cwd: dir, encoding: 'utf8' });
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
}

function flip(pdf: Buffer, at: number): Buffer {
  const altered = Buffer.from(pdf);
  altered[at] = altered[at]! ^ 0x01;
  return altered;
}

describeEachDatabase('the evidence PDF signature', (kind) => {
  let t: TestApp;
  let pdf: Buffer;
  let served: {
    fingerprint: string;
    publicKeyPem: string;
    certificate: { pem: string; fingerprint: string; signer: string; selfSigned: boolean };
  };

  beforeAll(async () => {
    t = await startTestApp(kind);
    const { key } = await t.account();
    const flight = groundTruth(t.app.sim!, DATE).find((f) => f.status === 'cancelled' && f.operation === 'passenger')!;
    const response = await t.get(
      `/api/v1/flights/evidence?flightNumber=${flight.flightNumber}&flightDate=${DATE}&origin=${flight.origin}`,
      bearer(key),
    );
    expect(response.statusCode, response.body.slice(0, 200)).toBe(200);
    pdf = response.rawPayload;
    served = json(await t.get('/api/v1/evidence/key')).data;
  });
  afterAll(async () => t?.close());

  it('is a PAdES signature over the whole file, by the self-signed certificate the key endpoint serves, bound to the Ed25519 key', async () => {
    expect(served.certificate).toMatchObject({ signer: 'Flight Status Service evidence', selfSigned: true });
    const pem = (await t.get('/api/v1/evidence/key?format=certificate')).body;
    expect(pem).toBe(served.certificate.pem);
    expect(new X509Certificate(pem).subject).toContain(`Ed25519 evidence key ${served.fingerprint.slice(0, 16)}`);
    const check = checkPdfSignature(pdf);
    if (typeof check === 'string') throw new Error(check);
    expect(check).toMatchObject({
      coversFile: true,
      digest: true,
      signature: true,
      subFilter: 'ETSI.CAdES.detached',
      certificate: served.certificate.fingerprint,
    });
    // The evidence line (under the Ed25519 signature) names the certificate; the update follows the seal.
    expect(pdf.toString('latin1')).toContain(`certificate=${served.certificate.fingerprint} `);
    expect(check.contentsAt).toBeGreaterThan(pdf.indexOf('%FlightStatus-Signature'));
    const verified = verifyEvidence(pdf, createPublicKey(served.publicKeyPem));
    expect(verified).toMatchObject({
      valid: true,
      failure: null,
      pdfSignature: { signature: 'valid', coversFile: true, certificate: served.certificate.fingerprint },
    });
  });

  it('verifies with OpenSSL CMS over the byte range, cut as the docs say; a changed byte fails', () => {
    const good = opensslCms(pdf, 'good.pdf');
    expect(good.output).toMatch(/CMS Verification successful/);
    expect(good.ok, good.output).toBe(true);
    // A byte of the page content (inside the byte range), and a byte of the sealing lines.
    for (const at of [Math.floor(pdf.length / 3), pdf.indexOf('%FlightStatus-Evidence') + 40]) {
      const bad = opensslCms(flip(pdf, at), `bad-${at}.pdf`);
      expect(bad.ok, `byte ${at}: ${bad.output}`).toBe(false);
      expect(bad.output).toMatch(/Verification failure|digest failure/i);
    }
  });

  it.runIf(hasPdfsig)(
    'is shown valid by poppler pdfsig, with its signer, and a changed or appended byte is detected',
    () => {
      const good = pdfsig(pdf, 'reader.pdf');
      expect(good).toMatch(/Signer Certificate Common Name: Flight Status Service evidence/);
      expect(good).toMatch(/Signature Type: ETSI\.CAdES\.detached/);
      expect(good).toMatch(/Signature Validation: Signature is Valid\./);
      expect(good).toMatch(/Total document signed/);
      expect(pdfsig(flip(pdf, Math.floor(pdf.length / 2)), 'changed.pdf')).toMatch(
        /Signature Validation: Digest Mismatch\./,
      );
      // An update appended after signing: the signature no longer covers the document, and our verifier refuses it.
      const appended = Buffer.concat([pdf, Buffer.from('\n% added later\n%%EOF\n')]);
      expect(pdfsig(appended, 'appended.pdf')).toMatch(/Not total document signed/);
      expect(verifyEvidence(appended, createPublicKey(served.publicKeyPem))).toMatchObject({
        valid: false,
        failure: expect.stringMatching(/does not cover the whole file/),
      });
    },
  );
});

/** A PKCS#12 made by OpenSSL 3 as an operator would: a key, a certificate issued by a CA, the CA in the chain. */
function operatorPkcs12(algorithm: 'rsa' | 'ec', password: string): Buffer {
  const at = mkdtempSync(join(dir, `p12-${algorithm}-`));
  const sh = (command: string) => execFileSync('sh', ['-c', command], { cwd: at, stdio: 'pipe' });
  const key =
    algorithm === 'rsa'
      ? 'openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048'
      : 'openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256';
  sh(
    `${key} -out ca.key && openssl req -x509 -new -key ca.key -subj '/CN=Claims Evidence Test CA' -days 30 -out ca.pem`,
  );
  sh(
    `${key} -out signer.key && openssl req -new -key signer.key -subj '/CN=Example Claims GmbH evidence/O=Example Claims GmbH' -out signer.csr`,
  );
  sh(
    `printf 'keyUsage=critical,digitalSignature,nonRepudiation\\n' > ext && openssl x509 -req -in signer.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 -extfile ext -out signer.pem`,
  );
  sh(
    `openssl pkcs12 -export -inkey signer.key -in signer.pem -certfile ca.pem -passout pass:${password} -out signer.p12`,
  );
  return readFileSync(join(at, 'signer.p12'));
}

describeWithoutDatabase("the operator's certificate (FLIGHTSTATUS_EVIDENCE_CERT)", () => {
  it('reads a PKCS#12 with its password, and says what is wrong without repeating it', () => {
    const file = operatorPkcs12('rsa', 'correct-horse');
    const signer = parsePkcs12(file, 'correct-horse');
    if (typeof signer === 'string') throw new Error(signer);
    expect(signer).toMatchObject({ name: 'Example Claims GmbH evidence', selfSigned: false });
    expect(signer.chain).toHaveLength(1);
    expect(parsePkcs12(file, 'wrong')).toMatch(/does not open with FLIGHTSTATUS_EVIDENCE_CERT_PASSWORD/);
    expect(parsePkcs12(Buffer.from('not a p12'), '')).toMatch(/not a PKCS#12 file/);
  });

  it('is read at start from a path or base64; a wrong password or a missing file stops the start naming the setting, never the password', () => {
    const file = operatorPkcs12('ec', 'p12-secret-value');
    const path = join(dir, 'operator.p12');
    writeFileSync(path, file);
    for (const given of [path, file.toString('base64')]) {
      const config = loadConfig({
        FLIGHTSTATUS_EVIDENCE_CERT: given,
        FLIGHTSTATUS_EVIDENCE_CERT_PASSWORD: 'p12-secret-value',
      });
      expect(config.evidence.certificate).toMatchObject({ name: 'Example Claims GmbH evidence', selfSigned: false });
      expect(JSON.stringify(config)).not.toContain('p12-secret-value');
    }
    expect(loadConfig({}).evidence.certificate).toBeNull();
    const refused = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('the start was not refused');
    };
    const wrong = refused({
      FLIGHTSTATUS_EVIDENCE_CERT: path,
      FLIGHTSTATUS_EVIDENCE_CERT_PASSWORD: 'not-the-p12-secret',
    });
    expect(wrong).toMatch(
      /FLIGHTSTATUS_EVIDENCE_CERT cannot be used: it does not open with FLIGHTSTATUS_EVIDENCE_CERT_PASSWORD/,
    );
    expect(wrong).not.toContain('not-the-p12-secret');
    expect(refused({ FLIGHTSTATUS_EVIDENCE_CERT: join(dir, 'missing.p12') })).toMatch(
      /FLIGHTSTATUS_EVIDENCE_CERT must be a PKCS#12 file/,
    );
  });

  for (const algorithm of ['rsa', 'ec'] as const) {
    it(`signs with an operator's ${algorithm.toUpperCase()} certificate and its chain, checked by OpenSSL against the CA${hasPdfsig ? ' and by pdfsig' : ''}`, async () => {
      const signer = parsePkcs12(operatorPkcs12(algorithm, 'pw'), 'pw');
      if (typeof signer === 'string') throw new Error(signer);
      const t = await startTestApp('sqlite', { evidenceCertificate: signer });
      try {
        const { key } = await t.account();
        const flight = groundTruth(t.app.sim!, DATE).find(
          (f) => f.status === 'delayed' && f.operation === 'passenger',
        )!;
        const response = await t.get(
          `/api/v1/flights/evidence?flightNumber=${flight.flightNumber}&flightDate=${DATE}&origin=${flight.origin}`,
          bearer(key),
        );
        expect(response.statusCode).toBe(200);
        const served = json(await t.get('/api/v1/evidence/key')).data;
        expect(served.certificate).toMatchObject({
          signer: 'Example Claims GmbH evidence',
          selfSigned: false,
          fingerprint: signer.fingerprint,
        });
        expect(verifyEvidence(response.rawPayload, createPublicKey(served.publicKeyPem))).toMatchObject({
          valid: true,
          pdfSignature: { signer: 'Example Claims GmbH evidence' },
        });
        const cms = opensslCms(response.rawPayload, `operator-${algorithm}.pdf`);
        expect(cms.ok, cms.output).toBe(true);
        if (hasPdfsig)
          expect(pdfsig(response.rawPayload, `operator-${algorithm}.pdf`)).toMatch(
            /Signer Certificate Common Name: Example Claims GmbH evidence[\s\S]*Signature is Valid\./,
          );
      } finally {
        await t.close();
      }
    });
  }
});

itWithoutDatabase(
  "reads a PDF signature whose CMS ends in a zero byte (the padding is not the signature's)",
  async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const signer = await selfSignedSigner(privateKey, 'f'.repeat(64));
    // A file as the update writes it: the byte range, then the CMS in hex, padded with zeros to the placeholder's size.
    const digits = (n: number) => String(n).padStart(10, '0');
    for (let i = 0; ; i++) {
      const head = `%PDF-1.7\n1 0 obj\n<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /ByteRange [0 R1 R2 R3] /Contents <`;
      const tail = `> >>\nendobj\n% ${i}\n%%EOF\n`;
      const room = 4096;
      const length1 = head.length - 1 + 3 * 8; // each placeholder R1..R3 becomes ten digits
      const start2 = length1 + 2 + room * 2;
      const framed = head
        .replace('R1', digits(length1))
        .replace('R2', digits(start2))
        .replace('R3', digits(tail.length - 1));
      const covered = Buffer.from(framed.slice(0, -1) + tail.slice(1), 'latin1');
      const cms = cadesDetached(covered, signer);
      if (cms[cms.length - 1] !== 0) continue;
      const file = Buffer.from(`${framed}${cms.toString('hex').padEnd(room * 2, '0')}${tail}`, 'latin1');
      expect(file.length).toBe(start2 + tail.length - 1);
      expect(checkPdfSignature(file)).toMatchObject({
        coversFile: true,
        digest: true,
        signature: true,
        certificate: signer.fingerprint,
      });
      break;
    }
  },
);
