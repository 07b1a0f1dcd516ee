// The evidence key's readings, the canonical record, the proof image made opaque, and the sealing
// lines' reader on files that are not what they claim.
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseEvidenceKey } from '../config.js';
import { encodePng } from '../flights/png.js';
import { canonicalJson, evidenceRecord, publicKeyOf } from './index.js';
import { opaquePng } from './image.js';
import { seal, unseal } from './sign.js';
import { verifyEvidence } from './verify.js';

describe('the evidence key', () => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const seed = (privateKey.export({ format: 'der', type: 'pkcs8' }) as Buffer).subarray(-32);

  it('reads PKCS#8 PEM (line breaks real or written \\n) and the 32-byte seed as hex or base64, all the same key', () => {
    const fingerprint = publicKeyOf(privateKey).fingerprint;
    for (const text of [
      pem,
      pem.trim().replace(/\n/g, '\\n'),
      seed.toString('hex'),
      seed.toString('hex').toUpperCase(),
      seed.toString('base64'),
      `  ${seed.toString('hex')}\n`,
    ]) {
      expect(publicKeyOf(parseEvidenceKey(text)!).fingerprint, text.slice(0, 20)).toBe(fingerprint);
    }
  });

  it('refuses anything else: another algorithm, a public key, a short seed, words', () => {
    const rsa = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    const pub = generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' }).toString();
    for (const text of [
      rsa,
      pub,
      'ab'.repeat(31),
      'secret',
      '-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----',
    ])
      expect(parseEvidenceKey(text)).toBeNull();
  });

  it('stops the start on a bad FLIGHTSTATUS_EVIDENCE_KEY without repeating it, and keeps a good one out of any serialisation', () => {
    const secret = `${'cd'.repeat(31)}zz`;
    expect(() => loadConfig({ FLIGHTSTATUS_EVIDENCE_KEY: secret })).toThrow(
      /FLIGHTSTATUS_EVIDENCE_KEY must be an Ed25519 private key/,
    );
    try {
      loadConfig({ FLIGHTSTATUS_EVIDENCE_KEY: secret });
    } catch (error) {
      expect(String((error as Error).message)).not.toContain(secret);
    }
    const config = loadConfig({ FLIGHTSTATUS_EVIDENCE_KEY: seed.toString('hex') });
    expect(config.evidence.key?.asymmetricKeyType).toBe('ed25519');
    expect(JSON.stringify(config)).not.toContain(seed.toString('hex'));
    expect(JSON.stringify(config)).not.toContain(seed.toString('base64'));
    expect(loadConfig({}).evidence.key).toBeNull();
  });
});

describe('the canonical record', () => {
  it('sorts keys at every depth, leaves out undefined members, writes no white space', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 'x', null, true], c: undefined, b: 'é\n' }, A: -0.5 })).toBe(
      '{"A":-0.5,"a":{"b":"é\\n","d":[1,"x",null,true]},"b":1}',
    );
  });

  it('drops what describes the answer (timings, replay, proof) and keeps what describes the flight', () => {
    const data = {
      flightNumber: 'W63101',
      flightDate: '2026-02-20',
      selected: { status: 'cancelled' },
      meta: {
        durationMs: 12.5,
        startedAt: 'a',
        finishedAt: 'b',
        cached: true,
        persisted: false,
        recordId: null,
        source: 'sim',
      },
      sources: [{ provider: 'sim', outcome: 'hit', durationMs: 3, fields: [], times: [], error: null }],
      proof: { data: 'AAAA' },
      proofError: 'x',
    } as never;
    const record = evidenceRecord(data);
    expect(record.bytes.toString()).toBe(
      '{"flightDate":"2026-02-20","flightNumber":"W63101","meta":{"recordId":null,"source":"sim"},"selected":{"status":"cancelled"},"sources":[{"error":null,"fields":[],"outcome":"hit","provider":"sim","times":[]}]}',
    );
    const replayed = evidenceRecord({
      ...(data as object),
      meta: {
        durationMs: 0,
        startedAt: 'c',
        finishedAt: 'c',
        cached: false,
        persisted: true,
        recordId: null,
        source: 'sim',
      },
    } as never);
    expect(replayed.sha256).toBe(record.sha256);
  });
});

describe('the proof image in the PDF', () => {
  it('makes an opaque RGBA PNG an RGB one of the same pixels, and leaves one with transparency as it is', async () => {
    const rgba = new Uint8Array(4 * 3 * 2).map((_, i) => (i % 4 === 3 ? 255 : i * 7));
    const png = await encodePng(rgba, 3, 2);
    const rgb = await opaquePng(png);
    expect(rgb[25]).toBe(2); // colour type: truecolour
    const pixels = inflateSync(rgb.subarray(rgb.indexOf('IDAT') + 4, rgb.indexOf('IEND') - 8));
    expect([...pixels]).toEqual([
      0,
      ...[0, 7, 14, 28, 35, 42, 56, 63, 70],
      0,
      ...[84, 91, 98, 112, 119, 126, 140, 147, 154],
    ]);
    const clear = Uint8Array.from(rgba);
    clear[3] = 0;
    const transparent = await encodePng(clear, 3, 2);
    expect(await opaquePng(transparent)).toBe(transparent);
  });
});

describe('the sealing lines', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const record = Buffer.from('{"flightNumber":"W63101"}');
  const pdf = Buffer.concat([
    Buffer.from('%PDF-1.3\n1 0 obj\n<< /Length 25 >>\nstream\n'),
    record,
    Buffer.from('\nendstream\nendobj\n%%EOF\n'),
  ]);
  const sealed = seal(
    {
      pdf,
      record,
      recordSha256: 'a'.repeat(64),
      recordSignature: sign(null, record, privateKey),
      keyFingerprint: 'f',
      certificate: 'c'.repeat(64),
      producedAt: 't',
    },
    privateKey,
  );

  it('points at the record, signs every byte before the signature line and ends with a %%EOF line for the PDF signature', () => {
    const read = unseal(sealed);
    if (typeof read === 'string') throw new Error(read);
    expect(read.record.equals(record)).toBe(true);
    expect(sealed.subarray(-7).toString()).toBe('\n%%EOF\n');
    expect(read.signed.equals(sealed.subarray(0, sealed.indexOf('%FlightStatus-Signature')))).toBe(true);
    expect(read).toMatchObject({ certificate: 'c'.repeat(64), end: sealed.length - '%%EOF\n'.length });
    expect(verifyEvidence(sealed, publicKey)).toMatchObject({
      valid: false,
      failure: expect.stringMatching(/record's SHA-256 is [0-9a-f]{64}, not a{64}/),
    });
  });

  it('keeps checking a document made before the PDF signature (no certificate named, nothing after the signature line), and refuses bytes added after one', () => {
    const sha = createHash('sha256').update(record).digest('hex');
    const fingerprint = publicKeyOf(publicKey).fingerprint;
    const made = seal(
      {
        pdf,
        record,
        recordSha256: sha,
        recordSignature: sign(null, record, privateKey),
        keyFingerprint: fingerprint,
        certificate: '',
        producedAt: 't',
      },
      privateKey,
    );
    const before = made.subarray(0, made.length - '%%EOF\n'.length);
    expect(verifyEvidence(before, publicKey)).toMatchObject({ valid: true, failure: null, pdfSignature: null });
    expect(verifyEvidence(Buffer.concat([before, Buffer.from('% later\n')]), publicKey)).toMatchObject({
      valid: false,
      failure: expect.stringMatching(/goes on 8 bytes after its signature line, which nothing signed/),
    });
    // One that names a certificate must carry its PDF signature.
    const named = seal(
      {
        pdf,
        record,
        recordSha256: sha,
        recordSignature: sign(null, record, privateKey),
        keyFingerprint: fingerprint,
        certificate: 'c'.repeat(64),
        producedAt: 't',
      },
      privateKey,
    );
    expect(verifyEvidence(named, publicKey)).toMatchObject({
      valid: false,
      failure: expect.stringMatching(/has no PDF signature \(\/ByteRange\), though the evidence line names one/),
    });
  });

  it('says what is wrong with a file that is not sealed, or sealed wrongly', () => {
    expect(unseal(pdf)).toMatch(/has no "%FlightStatus-Signature/);
    expect(unseal(Buffer.from('x'))).toMatch(/has no "%FlightStatus-Signature/);
    const lines = sealed.toString('latin1').split('\n');
    lines[lines.length - 4] =
      '%FlightStatus-Evidence: v1 record=9999+5 sha256=' + 'a'.repeat(64) + ' key=f record-signature=AA==';
    expect(unseal(Buffer.from(lines.join('\n'), 'latin1'))).toMatch(/points past the PDF/);
    expect(() =>
      seal(
        {
          pdf: Buffer.from('%PDF-1.3\n%%EOF\n'),
          record,
          recordSha256: '',
          recordSignature: Buffer.alloc(64),
          keyFingerprint: '',
          certificate: '',
          producedAt: '',
        },
        privateKey,
      ),
    ).toThrow(/exactly once/);
  });
});
