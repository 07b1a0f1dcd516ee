// The certificate of the evidence PDF's standard signature (docs/evidence.md, "The PDF signature"):
// the one a PDF reader shows as the signer. The operator's, from FLIGHTSTATUS_EVIDENCE_CERT (PKCS#12),
// or by default a self-signed one made from the evidence key: an RSA-2048 key and certificate derived
// from the Ed25519 seed, so every process holding the same evidence key signs with the same
// certificate, on either database, at every start, and the same record still gives the same bytes.
//
// The operator's certificate is read by config/pkcs12.ts. node-forge generates the RSA key from a
// seeded generator (Node's cannot be seeded); the signing itself is Node's crypto (pades.ts).
import { createHmac, createPrivateKey, type KeyObject } from 'node:crypto';
import forge from 'node-forge';
import { signerOf, type PdfSigner } from '../config.js';

export { certificateFingerprint, type PdfSigner } from '../config.js';

const der = (asn1: forge.asn1.Asn1) => Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');

/** A byte generator from the Ed25519 seed (HMAC-SHA-256 in counter mode): the same seed, the same stream. */
function seededPrng(seed: Buffer): forge.random.Random {
  const prng = forge.random.createInstance();
  let counter = 0;
  prng.seedFileSync = (needed: number) => {
    const blocks: Buffer[] = [];
    for (let have = 0; have < needed; have += 32)
      blocks.push(createHmac('sha256', seed).update(`flightstatus evidence certificate v1 ${counter++}`).digest());
    return Buffer.concat(blocks).subarray(0, needed).toString('binary');
  };
  return prng;
}

const derived = new Map<string, Promise<PdfSigner>>();

/**
 * The default certificate: self-signed, its RSA-2048 key generated from the evidence key's seed
 * (about a second, once per process and key, in slices of about 10 ms so the process keeps
 * answering meanwhile), valid from 2025 to 2075, named after the evidence key's fingerprint so a
 * reader shows which key it stands for.
 */
export function selfSignedSigner(evidenceKey: KeyObject, evidenceFingerprint: string): Promise<PdfSigner> {
  let signer = derived.get(evidenceFingerprint);
  if (!signer) {
    signer = derive(evidenceKey, evidenceFingerprint);
    derived.set(evidenceFingerprint, signer);
    signer.catch(() => derived.delete(evidenceFingerprint));
  }
  return signer;
}

async function derive(evidenceKey: KeyObject, evidenceFingerprint: string): Promise<PdfSigner> {
  const seed = Buffer.from(evidenceKey.export({ format: 'jwk' }).d!, 'base64url');
  const prng = seededPrng(seed);
  // Without workers, forge searches for primes in slices and yields between them (the same key as at once).
  const keys = await new Promise<forge.pki.rsa.KeyPair>((resolve, reject) =>
    forge.pki.rsa.generateKeyPair(
      { bits: 2048, e: 0x10001, prng, algorithm: 'PRIMEINC', workers: -1 },
      (error, pair) => (error ? reject(error) : resolve(pair)),
    ),
  );
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  // A positive 16-byte serial from the same seed.
  cert.serialNumber = `7${createHmac('sha256', seed).update('flightstatus evidence certificate serial').digest('hex').slice(1, 32)}`;
  cert.validity.notBefore = new Date('2025-01-01T00:00:00Z');
  cert.validity.notAfter = new Date('2075-01-01T00:00:00Z');
  const subject = [
    { name: 'commonName', value: 'Flight Status Service evidence' },
    { name: 'organizationName', value: 'Flight Status Service' },
    { name: 'organizationalUnitName', value: `Ed25519 evidence key ${evidenceFingerprint.slice(0, 16)} (self-signed)` },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return signerOf(
    createPrivateKey(forge.pki.privateKeyToPem(keys.privateKey)),
    der(forge.pki.certificateToAsn1(cert)),
    [],
    true,
  );
}
