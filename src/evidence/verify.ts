// Checking an evidence PDF against the evidence key's public half (what `flightstatus evidence verify`
// runs; docs/evidence.md gives the same checks as openssl commands): the document signature over
// every byte before the signature line, then the record the file points at, its SHA-256 and its own
// signature, then the PDF signature that follows: it covers the whole file and verifies, by the
// certificate the (Ed25519-signed) evidence line names. A file passes only when all of them hold.
import type { KeyObject } from 'node:crypto';
import { publicKeyOf } from './key.js';
import { checkPdfSignature } from './pades.js';
import { sha256, unseal, verifies } from './sign.js';

export type Check = 'valid' | 'invalid';

export interface Verification {
  valid: boolean;
  /** What failed, in one line; null when valid. */
  failure: string | null;
  /** The fingerprint of the key checked against. */
  key: string;
  document: { signature: Check; signedBytes: number; signedBy: string; producedAt: string } | null;
  /** The PDF signature (PAdES) readers show; null in documents made before it. */
  pdfSignature: {
    signature: Check;
    coversFile: boolean;
    certificate: string;
    signer: string;
    subFilter: string | null;
  } | null;
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
  if (typeof sealed === 'string')
    return { valid: false, failure: sealed, key, document: null, record: null, pdfSignature: null };

  const documentValid = verifies(sealed.signed, sealed.signature, publicKey);
  const hash = sha256(sealed.record);
  const hashValid = hash === sealed.recordSha256;
  const recordValid = verifies(sealed.record, sealed.recordSignature, publicKey);
  const parsed = parseRecord(sealed.record);
  const text = (value: unknown) => (typeof value === 'string' ? value : null);

  const otherKey =
    sealed.keyFingerprint !== key ? ` (the file names key ${sealed.keyFingerprint}; the key given is ${key})` : '';
  const pdf = pdfSignature(file, sealed.end, sealed.certificate);
  const failure = !documentValid
    ? `the document signature does not verify: the file was altered after it was produced, or signed with another key${otherKey}`
    : !hashValid
      ? `the record's SHA-256 is ${hash}, not ${sealed.recordSha256} as the file says`
      : !recordValid
        ? `the record's signature does not verify${otherKey}`
        : parsed === null
          ? 'the attached record is not a JSON object'
          : typeof pdf === 'string'
            ? pdf
            : null;
  return {
    valid: failure === null,
    failure,
    key,
    document: {
      signature: documentValid ? 'valid' : 'invalid',
      signedBytes: sealed.signed.length,
      signedBy: sealed.keyFingerprint,
      producedAt: sealed.producedAt,
    },
    pdfSignature: typeof pdf === 'string' ? null : pdf,
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

/**
 * The PDF signature after the sealing lines: what it says, or why the file fails. A document that
 * names no certificate (made before the PDF signature) must end at its signature line.
 */
function pdfSignature(file: Buffer, end: number, certificate: string | null): Verification['pdfSignature'] | string {
  if (certificate === null)
    return end === file.length
      ? null
      : `the file goes on ${file.length - end} bytes after its signature line, which nothing signed`;
  const check = checkPdfSignature(file);
  if (typeof check === 'string') return `${check}, though the evidence line names one`;
  const valid = check.digest && check.signature;
  const summary = {
    signature: valid ? ('valid' as const) : ('invalid' as const),
    coversFile: check.coversFile,
    certificate: check.certificate,
    signer: check.signer,
    subFilter: check.subFilter,
  };
  if (check.contentsAt < end) return 'the PDF signature lies before the signature line, not in the update after it';
  if (!check.coversFile) return 'the PDF signature does not cover the whole file: bytes were added after it was signed';
  if (!valid)
    return `the PDF signature does not verify (${check.digest ? 'its signature' : 'the digest of the bytes it covers'}): the file was altered after it was signed`;
  if (check.certificate !== certificate)
    return `the PDF signature is by certificate ${check.certificate}, not ${certificate} as the evidence line says`;
  return summary;
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
