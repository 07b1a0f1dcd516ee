// The evidence key: an Ed25519 key pair whose private half signs evidence PDFs and the records they
// render, and whose public half anyone can fetch (GET /api/v1/evidence/key) to check them with
// openssl or `flightstatus evidence verify` (docs/evidence.md). Crypto only, nothing from the
// database or the environment: config/evidence.ts reads FLIGHTSTATUS_EVIDENCE_KEY (parseEvidenceKey).
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';

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
