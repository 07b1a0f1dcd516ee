// Evidence PDFs (docs/evidence.md): the Ed25519 key that signs them and the records they render, and
// the certificate of their standard PDF signature.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { Type } from 'typebox';
import { parsePkcs12, type PdfSigner } from './pkcs12.js';
import { capability, custom, invalid, text } from './setting.js';

export interface EvidenceConfig {
  /** The evidence signing key; null: a key file beside SQLite, none on PostgreSQL (evidence/keyfile.ts). */
  key: KeyObject | null;
  /** The PDF signature's signer (FLIGHTSTATUS_EVIDENCE_CERT); null: a self-signed certificate made from the evidence key. */
  certificate: PdfSigner | null;
}

/** PKCS#8 DER of an Ed25519 private key up to its 32-byte seed (RFC 8410): the seed follows. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * An Ed25519 private key from the setting's text: PKCS#8 PEM (its line breaks real or written as
 * `\n`), or the 32-byte seed as 64 hex digits or base64. Null when the text is none of them.
 */
export function parseEvidenceKey(text: string): KeyObject | null {
  const value = text.trim();
  if (value.startsWith('-----BEGIN')) {
    try {
      const key = createPrivateKey({ key: value.replace(/\\n/g, '\n'), format: 'pem' });
      return key.asymmetricKeyType === 'ed25519' ? key : null;
    } catch {
      return null;
    }
  }
  const seed = /^[0-9a-f]{64}$/i.test(value)
    ? Buffer.from(value, 'hex')
    : /^[A-Za-z0-9+/]{43}=?$/.test(value)
      ? Buffer.from(value, 'base64')
      : null;
  if (seed?.length !== 32) return null;
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** The PKCS#12 bytes the setting names: a file's path, or the file itself in base64. */
function pkcs12Bytes(value: string): Buffer | null {
  if (value.startsWith('/') || value.startsWith('.') || /\.(p12|pfx)$/i.test(value))
    return existsSync(value) ? readFileSync(value) : null;
  const bytes = /^[A-Za-z0-9+/\s]+=*$/.test(value) ? Buffer.from(value, 'base64') : null;
  return bytes && bytes.length > 0 && bytes[0] === 0x30 ? bytes : null;
}

const CERT_HELP =
  'FLIGHTSTATUS_EVIDENCE_CERT must be a PKCS#12 file (.p12 / .pfx) holding the signing key and its certificate: its path, or the file in base64 ' +
  '(make one with: openssl pkcs12 -export -inkey key.pem -in cert.pem -out evidence.p12)';

function certificateOf(bytes: Buffer | null, password: string): PdfSigner | string | null {
  if (!bytes) return null;
  const signer = parsePkcs12(bytes, password);
  return typeof signer === 'string' ? `FLIGHTSTATUS_EVIDENCE_CERT cannot be used: ${signer}` : signer;
}

export const evidence = capability({
  title: 'Evidence PDFs (docs/evidence.md)',
  settings: {
    FLIGHTSTATUS_EVIDENCE_KEY: custom({
      default: '',
      schema: Type.Union([Type.Unsafe<KeyObject>({ description: 'an Ed25519 private key' }), Type.Null()]),
      // The message never echoes the text: it is a private key.
      parse: (text) =>
        text === ''
          ? null
          : (parseEvidenceKey(text) ??
            invalid(
              'FLIGHTSTATUS_EVIDENCE_KEY must be an Ed25519 private key: PKCS#8 PEM (make one with: openssl genpkey -algorithm ed25519), ' +
                'or its 32-byte seed as 64 hex digits or base64',
            )),
      doc: 'Ed25519 private key that signs evidence PDFs (PKCS#8 PEM, or the 32-byte seed as hex or base64); on SQLite, empty means a key file generated beside the database; on PostgreSQL, empty turns evidence PDFs off (503) ([docs/evidence.md](docs/evidence.md#the-key))',
      comment:
        'Ed25519 private key that signs evidence PDFs and the records they render: PKCS#8 PEM (`openssl genpkey ' +
        '-algorithm ed25519`; line breaks as \\n on one line), or its 32-byte seed as 64 hex digits or base64. The same ' +
        'on every process. Empty on SQLite: a key is generated on first start into <database file>.evidence-key ' +
        '(mode 0600) beside the database; back it up with the database. Empty on PostgreSQL: the service starts, and ' +
        'the evidence routes answer 503 until it is set. Keep the key: documents signed with it are checked against ' +
        'its public half (GET /api/v1/evidence/key).',
    }),
    FLIGHTSTATUS_EVIDENCE_CERT: custom({
      default: '',
      schema: Type.Union([Type.Unsafe<Buffer>({ description: 'a PKCS#12 file' }), Type.Null()]),
      parse: (value) => (value === '' ? null : (pkcs12Bytes(value) ?? invalid(CERT_HELP))),
      doc: "The certificate of the evidence PDF's standard (PAdES) signature, which PDF readers show: a PKCS#12 file's path, or the file in base64; empty means a self-signed certificate made from the evidence key ([docs/evidence.md](docs/evidence.md#the-pdf-signature))",
      comment:
        'The certificate PDF readers show as the signer of evidence PDFs (a PAdES signature beside the Ed25519 one): a ' +
        'PKCS#12 file (.p12 / .pfx with the private key, RSA or EC, its certificate and any chain), as a path or in base64. ' +
        'Empty: a self-signed certificate derived from the evidence key, the same on every process. A certificate from a ' +
        'CA that readers trust (an AATL or EU trusted-list one) makes readers show the signature as trusted.',
    }),
    FLIGHTSTATUS_EVIDENCE_CERT_PASSWORD: text({
      default: '',
      doc: "The password of FLIGHTSTATUS_EVIDENCE_CERT's PKCS#12 file (never logged)",
      comment: 'The password of the PKCS#12 file in FLIGHTSTATUS_EVIDENCE_CERT; empty when it has none.',
    }),
  },
  check: (reading) => {
    const { FLIGHTSTATUS_EVIDENCE_CERT: bytes, FLIGHTSTATUS_EVIDENCE_CERT_PASSWORD: password } = reading.values;
    const certificate = bytes === undefined ? null : certificateOf(bytes, password ?? '');
    if (typeof certificate === 'string') reading.problem(certificate);
  },
  build: (v): { evidence: EvidenceConfig } => {
    const certificate = certificateOf(v.FLIGHTSTATUS_EVIDENCE_CERT, v.FLIGHTSTATUS_EVIDENCE_CERT_PASSWORD);
    return {
      evidence: { key: v.FLIGHTSTATUS_EVIDENCE_KEY, certificate: typeof certificate === 'string' ? null : certificate },
    };
  },
});
