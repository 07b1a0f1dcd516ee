// GET /api/v1/flights/evidence and GET /api/v1/evidence/key end to end, on each database: a signed PDF
// of a disrupted flight for one credit, checked with node:crypto alone (as a court's expert would,
// following docs/evidence.md) against the served key; reproducible bytes; the refusals; the key's
// configuration; and the dashboard's link to it.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HOUR } from '../src/clock.js';
import { parseEvidenceKey } from '../src/config.js';
import { canonicalJson, evidenceKeyFilePath, publicKeyOf } from '../src/evidence/index.js';
import { groundTruth, type TruthFlight } from '../src/sim/index.js';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';
import { text, Visitor } from './helpers/dashboard.js';

const DATE = '2026-02-20';

/** A disrupted passenger flight whose number flies one leg that day. */
function disrupted(t: TestApp, status: TruthFlight['status']): TruthFlight {
  const day = groundTruth(t.app.sim!, DATE);
  const legs = new Map<string, number>();
  for (const f of day) legs.set(f.flightNumber, (legs.get(f.flightNumber) ?? 0) + 1);
  return day.find(
    (f) =>
      f.status === status &&
      f.operation === 'passenger' &&
      legs.get(f.flightNumber) === 1 &&
      (status !== 'delayed' || f.arrivalDelayMinutes! >= 180),
  )!;
}

/** The file cut as docs/evidence.md cuts it: the signed bytes, the signature, and the record the evidence line points at. */
function cut(pdf: Buffer) {
  const last = pdf.lastIndexOf('\n%FlightStatus-Signature: ') + 1;
  const signed = pdf.subarray(0, last);
  const signatureLine = pdf.subarray(last, pdf.indexOf(0x0a, last)).toString('latin1');
  const evidenceLine = signed.subarray(signed.lastIndexOf(0x0a, last - 2) + 1, last - 1).toString('latin1');
  const [, offset, length] = /record=(\d+)\+(\d+)/.exec(evidenceLine)!.map(Number);
  return {
    signed,
    signatureLine,
    evidenceLine,
    signature: Buffer.from(signatureLine.split(' ')[2]!, 'base64'),
    record: pdf.subarray(offset!, offset! + length!),
    recordSignature: Buffer.from(/record-signature=(\S+)/.exec(evidenceLine)![1]!, 'base64'),
    sha256: /sha256=([0-9a-f]{64})/.exec(evidenceLine)![1]!,
  };
}

describeEachDatabase('evidence PDFs', (kind) => {
  let t: TestApp;
  let key: string;
  const evidenceUrl = (f: TruthFlight) => `/api/v1/flights/evidence?flightNumber=${f.flightNumber}&flightDate=${DATE}`;
  const used = async () =>
    (await t.app.db.kysely.selectFrom('credit_windows').select('used').execute()).reduce((s, r) => s + r.used, 0);

  beforeAll(async () => {
    t = await startTestApp(kind);
    key = (await t.account()).key;
  });
  afterAll(async () => t?.close());

  it('gives a disrupted flight as a signed PDF for one credit, which the served key verifies and a flipped byte breaks', async () => {
    const flight = disrupted(t, 'cancelled');
    const before = await used();
    const response = await t.get(evidenceUrl(flight), bearer(key));
    expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.headers['content-disposition']).toBe(
      `inline; filename="evidence-${flight.flightNumber}-${DATE}.pdf"`,
    );
    expect(await used()).toBe(before + 1);
    const usage = await t.app.db.kysely
      .selectFrom('usage_log')
      .select(['endpoint', 'status'])
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(usage).toEqual({ endpoint: 'GET /api/v1/flights/evidence', status: 200 });
    const pdf = response.rawPayload;
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');

    // The public key, open to anyone; its fingerprint is the SHA-256 of its DER.
    const served = await t.get('/api/v1/evidence/key');
    expect(served.statusCode).toBe(200);
    const { publicKeyPem, algorithm, fingerprint } = json(served).data;
    expect(algorithm).toBe('Ed25519');
    const publicKey = createPublicKey(publicKeyPem);
    expect(
      createHash('sha256')
        .update(publicKey.export({ format: 'der', type: 'spki' }))
        .digest('hex'),
    ).toBe(fingerprint);
    const pem = await t.get('/api/v1/evidence/key?format=pem');
    expect(pem.headers['content-type']).toMatch(/^application\/x-pem-file/);
    expect(pem.body).toBe(publicKeyPem);

    const parts = cut(pdf);
    expect(parts.signatureLine).toMatch(/^%FlightStatus-Signature: ed25519 [A-Za-z0-9+/]{86}==$/);
    expect(parts.signed.subarray(0, parts.signed.lastIndexOf('%FlightStatus-Evidence')).subarray(-6).toString()).toBe(
      '%%EOF\n',
    );
    expect(parts.evidenceLine).toContain(`key=${fingerprint}`);
    expect(verify(null, parts.signed, publicKey, parts.signature)).toBe(true);
    // The record: its hash as the file and the response say, its own signature, and the lookup's answer.
    expect(createHash('sha256').update(parts.record).digest('hex')).toBe(parts.sha256);
    expect(response.headers['x-evidence-record-sha256']).toBe(parts.sha256);
    expect(verify(null, parts.record, publicKey, parts.recordSignature)).toBe(true);
    const record = JSON.parse(parts.record.toString('utf8'));
    expect(parts.record.toString('utf8')).toBe(canonicalJson(record));
    const status = json(
      await t.get(`/api/v1/flights/status?flightNumber=${flight.flightNumber}&flightDate=${DATE}`, bearer(key)),
    ).data;
    expect(record.selected).toEqual(status.selected);
    expect(record.compensation).toEqual(status.compensation);
    expect(record.circumstances).toEqual(status.circumstances);
    expect(record.meta).toEqual({ recordId: null, source: 'sim' });
    expect(record.sources[0]).not.toHaveProperty('durationMs');
    expect(record.selected.status).toBe('cancelled');

    // One byte changed anywhere before the signature line, and the document no longer verifies.
    for (const at of [100, Math.floor(parts.signed.length / 2), parts.signed.length - 3]) {
      const altered = Buffer.from(pdf);
      altered[at] = altered[at]! ^ 0x01;
      expect(verify(null, cut(altered).signed, publicKey, parts.signature), `byte ${at}`).toBe(false);
    }
    // And a byte of the record breaks the record's hash and signature too.
    const inRecord = Buffer.from(pdf);
    const offset = pdf.indexOf(parts.record);
    inRecord[offset + 10] = inRecord[offset + 10]! ^ 0x01;
    const broken = cut(inRecord);
    expect(createHash('sha256').update(broken.record).digest('hex')).not.toBe(parts.sha256);
    expect(verify(null, broken.record, publicKey, parts.recordSignature)).toBe(false);
  });

  it('renders the same record to the same bytes (live or replayed), and another production time only changes the production', async () => {
    const flight = disrupted(t, 'delayed');
    const first = await t.get(evidenceUrl(flight), bearer(key));
    // The flight is settled, so the first call stored it and this one is a replay: the same record.
    const second = await t.get(evidenceUrl(flight), bearer(key));
    expect(first.statusCode).toBe(200);
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    t.clock.advance(HOUR);
    const later = await t.get(evidenceUrl(flight), bearer(key));
    expect(later.rawPayload.equals(first.rawPayload)).toBe(false);
    const [a, b] = [cut(first.rawPayload), cut(later.rawPayload)];
    expect(b.record.equals(a.record)).toBe(true);
    expect(b.sha256).toBe(a.sha256);
    expect(b.recordSignature.equals(a.recordSignature)).toBe(true);
    expect(a.evidenceLine).toContain('produced=2026-03-01T12:00:00.000Z');
    expect(b.evidenceLine).toContain('produced=2026-03-01T13:00:00.000Z');
  });

  it('answers a flight not found with 404, a bad query with 400, each for a credit as on the status endpoint', async () => {
    const before = await used();
    const missing = await t.get(`/api/v1/flights/evidence?flightNumber=ZZ9999&flightDate=${DATE}`, bearer(key));
    expect(missing.statusCode).toBe(404);
    expect(json(missing)).toEqual({
      success: false,
      code: 'not_found',
      message: `No flight ZZ9999 on ${DATE} was found; nothing to attest`,
    });
    const bad = await t.get('/api/v1/flights/evidence?flightNumber=W63101', bearer(key));
    expect(bad.statusCode).toBe(400);
    expect(json(bad).message).toMatch(/flightDate/);
    expect(await used()).toBe(before + 2);
    expect((await t.get(`/api/v1/flights/evidence?flightNumber=ZZ9999&flightDate=${DATE}`)).statusCode).toBe(401);
    expect(await used()).toBe(before + 2);
  });

  it('signs with FLIGHTSTATUS_EVIDENCE_KEY when set; unset, a key file beside SQLite, and on PostgreSQL a 503 that costs nothing', async () => {
    const configured = parseEvidenceKey('ab'.repeat(32))!;
    const withKey = await startTestApp(kind, { evidenceKey: configured });
    try {
      expect(json(await withKey.get('/api/v1/evidence/key')).data.fingerprint).toBe(
        publicKeyOf(configured).fingerprint,
      );
    } finally {
      await withKey.close();
    }
    const unset = await startTestApp(kind, { evidenceKey: null });
    try {
      const target = unset.database.target;
      const a = await unset.account();
      const flight = disrupted(unset, 'cancelled');
      const response = await unset.get(evidenceUrl(flight), bearer(a.key));
      if (target.kind === 'sqlite') {
        expect(response.statusCode).toBe(200);
        const file = evidenceKeyFilePath(target.path);
        expect(existsSync(file)).toBe(true);
        expect(statSync(file).mode & 0o777).toBe(0o600);
        // The file's key is the one served.
        expect(json(await unset.get('/api/v1/evidence/key')).data.fingerprint).toBe(
          publicKeyOf(parseEvidenceKey((await import('node:fs')).readFileSync(file, 'utf8'))!).fingerprint,
        );
      } else {
        expect(response.statusCode).toBe(503);
        expect(json(response)).toMatchObject({
          success: false,
          code: 'unavailable',
          message: expect.stringContaining('FLIGHTSTATUS_EVIDENCE_KEY is not set'),
        });
        expect((await unset.app.db.kysely.selectFrom('usage_log').selectAll().execute()).length).toBe(0);
        expect(response.headers['x-credits-used']).toBe('0');
        expect((await unset.get('/api/v1/evidence/key')).statusCode).toBe(503);
        expect((await unset.get(evidenceUrl(flight))).statusCode).toBe(401);
      }
    } finally {
      await unset.close();
    }
  });

  it("links the dashboard lookup to the evidence PDF of the flight shown, metered one credit, refused without the page's token", async () => {
    const v = new Visitor(t);
    await v.signUp(`evidence-${kind}@example.com`);
    await v.get('/dashboard/lookup');
    const flight = disrupted(t, 'diverted');
    const answer = await v.post('/dashboard/lookup', {
      flightNumber: flight.flightNumber,
      flightDate: DATE,
      origin: '',
      destination: '',
    });
    expect(text(answer)).toContain('Evidence PDF (1 credit)');
    const href = /<a href="([^"]+)" id="evidence-link">/.exec(answer.body)![1]!.replace(/&amp;/g, '&');
    expect(href).toMatch(
      new RegExp(`^/dashboard/evidence\\?flightNumber=${flight.flightNumber}&flightDate=${DATE}&_csrf=`),
    );
    const rows = () =>
      t.app.db.kysely
        .selectFrom('usage_log')
        .select(['endpoint', 'status'])
        .where('endpoint', 'like', '%dashboard%')
        .orderBy('id')
        .execute();
    const pdf = await v.get(href);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(await rows()).toEqual([
      { endpoint: 'POST /dashboard/lookup', status: 200 },
      { endpoint: 'GET /dashboard/evidence', status: 200 },
    ]);
    // Without the token (a link from another site), nothing is taken.
    const forged = await v.get(href.replace(/&_csrf=[^&]+/, ''));
    expect(forged.statusCode).toBe(403);
    expect(text(forged)).toContain('This evidence link has expired');
    expect(await rows()).toHaveLength(2);
    const twice = await v.get(`${href}&flightNumber=${flight.flightNumber}`);
    expect(twice.statusCode).toBe(400);
    expect(await rows()).toHaveLength(2);
    const missing = await v.get(href.replace(flight.flightNumber, 'ZZ9999'));
    expect(missing.statusCode).toBe(404);
    expect(text(missing)).toContain('nothing to attest. The credit was taken, as for a lookup.');
    expect((await rows()).at(-1)).toEqual({ endpoint: 'GET /dashboard/evidence', status: 404 });
  });
});
