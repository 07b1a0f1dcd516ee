// The certificate of the evidence PDF's standard signature (docs/evidence.md, "The PDF signature"):
// the one a PDF reader shows as the signer. The operator's, from FLIGHTSTATUS_EVIDENCE_CERT (PKCS#12),
// or by default a self-signed one made from the evidence key: an RSA-2048 key and certificate derived
// from the Ed25519 seed, so every process holding the same evidence key signs with the same
// certificate, on either database, at every start, and the same record still gives the same bytes.
//
// node-forge reads PKCS#12 (Node's crypto does not) and generates an RSA key from a seeded generator
// (Node's cannot be seeded); the signing itself is Node's crypto (cades.ts).
import { createHash, createHmac, createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import forge from 'node-forge';

/** What signs the PDF signature: the private key, its certificate and the chain above it. */
export interface PdfSigner {
  key: KeyObject;
  /** The signer's certificate, DER. */
  certificate: Buffer;
  /** Certificates above it (intermediates, a root), DER, as the PKCS#12 held them. */
  chain: Buffer[];
  /** SHA-256 of the certificate's DER, lower-case hex: every evidence line names it (sign.ts). */
  fingerprint: string;
  /** The subject's common name (or whole subject), which readers show as the signer. */
  name: string;
  /** Whether the certificate is the default self-signed one. */
  selfSigned: boolean;
}

export const certificateFingerprint = (der: Buffer) => createHash('sha256').update(der).digest('hex');

function signerOf(key: KeyObject, certificate: Buffer, chain: Buffer[], selfSigned: boolean): PdfSigner {
  const x509 = new X509Certificate(certificate);
  const name = /(?:^|\n)CN=([^\n]*)/.exec(x509.subject)?.[1] ?? x509.subject.replace(/\n/g, ', ');
  return { key, certificate, chain, fingerprint: certificateFingerprint(certificate), name, selfSigned };
}

const der = (asn1: forge.asn1.Asn1) => Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');

/**
 * The signer a PKCS#12 file holds: its private key and the certificate whose public key matches it,
 * with the file's other certificates as the chain. A string says what is wrong (never the password).
 */
export function parsePkcs12(file: Buffer, password: string): PdfSigner | string {
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(forge.util.createBuffer(file.toString('binary'))), false, password);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return /mac|password|decrypt/i.test(message) ? 'it does not open with FLIGHTSTATUS_EVIDENCE_CERT_PASSWORD (wrong password?)' : 'it is not a PKCS#12 file (.p12 / .pfx)';
  }
  const bags = (type: string) => p12.getBags({ bagType: type })[type] ?? [];
  const keyBag = [...bags(forge.pki.oids.pkcs8ShroudedKeyBag!), ...bags(forge.pki.oids.keyBag!)][0];
  // forge reads RSA keys; any other (EC) it leaves as the PrivateKeyInfo, which Node reads.
  const info = keyBag?.key ? forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(keyBag.key)) : keyBag?.asn1;
  if (!info) return 'it holds no private key';
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: der(info), format: 'der', type: 'pkcs8' });
  } catch {
    return 'its private key is of a kind this service cannot read';
  }
  if (!['rsa', 'ec'].includes(key.asymmetricKeyType ?? '')) return `its private key is ${key.asymmetricKeyType}; PDF readers check RSA and EC (ECDSA) signatures`;
  const publicDer = createPublicKey(key).export({ format: 'der', type: 'spki' });
  const certificates = bags(forge.pki.oids.certBag!).flatMap((bag) => (bag.cert ? [der(forge.pki.certificateToAsn1(bag.cert))] : bag.asn1 ? [der(bag.asn1)] : []));
  const own = certificates.find((der) => new X509Certificate(der).publicKey.export({ format: 'der', type: 'spki' }).equals(publicDer));
  if (!own) return 'it holds no certificate for its private key';
  const x509 = new X509Certificate(own);
  if (!x509.checkPrivateKey(key)) return 'its certificate does not match its private key';
  return signerOf(key, own, certificates.filter((der) => der !== own), false);
}

/** A byte generator from the Ed25519 seed (HMAC-SHA-256 in counter mode): the same seed, the same stream. */
function seededPrng(seed: Buffer): forge.random.Random {
  const prng = forge.random.createInstance();
  let counter = 0;
  prng.seedFileSync = (needed: number) => {
    const blocks: Buffer[] = [];
    for (let have = 0; have < needed; have += 32) blocks.push(createHmac('sha256', seed).update(`flightstatus evidence certificate v1 ${counter++}`).digest());
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
    forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001, prng, algorithm: 'PRIMEINC', workers: -1 }, (error, pair) => (error ? reject(error) : resolve(pair))),
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
  return signerOf(createPrivateKey(forge.pki.privateKeyToPem(keys.privateKey)), der(forge.pki.certificateToAsn1(cert)), [], true);
}
