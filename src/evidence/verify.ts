// Checking an evidence PDF against the evidence key's public half (what `flightstatus evidence verify`
// runs; docs/evidence.md gives the same checks as openssl commands): the document signature over
// every byte before the last line, then the record the file points at, its SHA-256 and its own
// signature. A file passes only when all three hold.
import type { KeyObject } from 'node:crypto';
import { publicKeyOf } from './key.js';
import { sha256, unseal, verifies } from './sign.js';

export type Check = 'valid' | 'invalid';

export interface Verification {
  valid: boolean;
  /** What failed, in one line; null when valid. */
  failure: string | null;
  /** The fingerprint of the key checked against. */
  key: string;
  document: { signature: Check; signedBytes: number; signedBy: string; producedAt: string } | null;
  record: {
    sha256: string;
    hash: Check;
    signature: Check;
    bytes: number;
    flightNumber: string | null;
    flightDate: string | null;
    status: string | null;
  } | null;
}

export function verifyEvidence(file: Buffer, publicKey: KeyObject): Verification {
  const key = publicKeyOf(publicKey).fingerprint;
  const sealed = unseal(file);
  if (typeof sealed === 'string') return { valid: false, failure: sealed, key, document: null, record: null };

  const documentValid = verifies(sealed.signed, sealed.signature, publicKey);
  const hash = sha256(sealed.record);
  const hashValid = hash === sealed.recordSha256;
  const recordValid = verifies(sealed.record, sealed.recordSignature, publicKey);
  const parsed = parseRecord(sealed.record);
  const text = (value: unknown) => (typeof value === 'string' ? value : null);

  const otherKey = sealed.keyFingerprint !== key ? ` (the file names key ${sealed.keyFingerprint}; the key given is ${key})` : '';
  const failure = !documentValid
    ? `the document signature does not verify: the file was altered after it was produced, or signed with another key${otherKey}`
    : !hashValid
      ? `the record's SHA-256 is ${hash}, not ${sealed.recordSha256} as the file says`
      : !recordValid
        ? `the record's signature does not verify${otherKey}`
        : parsed === null
          ? 'the attached record is not a JSON object'
          : null;
  return {
    valid: failure === null,
    failure,
    key,
    document: { signature: documentValid ? 'valid' : 'invalid', signedBytes: sealed.signed.length, signedBy: sealed.keyFingerprint, producedAt: sealed.producedAt },
    record: {
      sha256: hash,
      hash: hashValid ? 'valid' : 'invalid',
      signature: recordValid ? 'valid' : 'invalid',
      bytes: sealed.record.length,
      flightNumber: text(parsed?.flightNumber),
      flightDate: text(parsed?.flightDate),
      status: text(parsed?.selected?.status),
    },
  };
}

type RecordHead = { flightNumber?: unknown; flightDate?: unknown; selected?: { status?: unknown } | null };

function parseRecord(bytes: Buffer): RecordHead | null {
  try {
    const value = JSON.parse(bytes.toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null ? (value as RecordHead) : null;
  } catch {
    return null;
  }
}
