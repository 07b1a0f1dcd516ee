// The evidence key: an Ed25519 key pair whose private half signs evidence PDFs and the records they
// render, and whose public half anyone can fetch (GET /api/v1/evidence/key) to check them with
// openssl or `flightstatus evidence verify` (docs/evidence.md). Crypto only, nothing from the
// database or the environment: config/evidence.ts reads FLIGHTSTATUS_EVIDENCE_KEY with parseEvidenceKey.
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';

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
  const seed = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : /^[A-Za-z0-9+/]{43}=?$/.test(value) ? Buffer.from(value, 'base64') : null;
  if (seed?.length !== 32) return null;
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** The public half, as served and as openssl reads it. */
export interface PublicEvidenceKey {
  algorithm: 'Ed25519';
  /** SubjectPublicKeyInfo, PEM. */
  publicKeyPem: string;
  /** SHA-256 of the SubjectPublicKeyInfo DER, lower-case hex (`openssl pkey -pubin -outform DER | sha256sum`). */
  fingerprint: string;
}

export function publicKeyOf(key: KeyObject): PublicEvidenceKey {
  const pub = key.type === 'public' ? key : createPublicKey(key);
  const der = pub.export({ format: 'der', type: 'spki' });
  return {
    algorithm: 'Ed25519',
    publicKeyPem: pub.export({ format: 'pem', type: 'spki' }).toString(),
    fingerprint: createHash('sha256').update(der).digest('hex'),
  };
}

/** A public key from PEM (SPKI), for the verifier; null when the text is not an Ed25519 public key. */
export function parsePublicKey(pem: string): KeyObject | null {
  try {
    const key = createPublicKey({ key: pem, format: 'pem' });
    return key.asymmetricKeyType === 'ed25519' ? key : null;
  } catch {
    return null;
  }
}
