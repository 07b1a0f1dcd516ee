// The signature scheme of evidence PDFs (docs/evidence.md, "The signature"), checkable with OpenSSL 3
// and a POSIX shell alone. After pdfkit's `%%EOF` line come two comment lines, which PDF readers
// ignore:
//
//   %FlightStatus-Evidence: v1 record=OFFSET+LENGTH sha256=HEX key=FINGERPRINT certificate=HEX produced=ISO record-signature=BASE64
//   %FlightStatus-Signature: ed25519 BASE64
//
// The first says where the attached record.json lies in the file (its uncompressed stream: LENGTH
// bytes from byte OFFSET, counted from 0), its SHA-256, the evidence key's fingerprint, the SHA-256
// of the certificate whose PDF signature follows (pades.ts), the production time and the record's
// own Ed25519 signature (also attached as record.json.sig). The second is the Ed25519 signature
// (RFC 8032, pure: the message itself, no pre-hash) of every byte of the file before it, that first
// line and its line feed included. Each line ends with one line feed. Then a `%%EOF` line and the
// incremental update of the PDF signature, which covers the whole file, these lines included; the
// evidence line binds it to the Ed25519 key by naming its certificate. Documents made before the PDF
// signature end with the signature line and name no certificate.
// Ed25519 signatures are deterministic, so the same bytes always get the same signature.
import { createHash, sign, verify, type KeyObject } from 'node:crypto';

export const EVIDENCE_PREFIX = '%FlightStatus-Evidence: v1 ';
export const SIGNATURE_PREFIX = '%FlightStatus-Signature: ed25519 ';

export interface SealInput {
  /** The PDF up to and including its `%%EOF` line feed. */
  pdf: Buffer;
  record: Buffer;
  recordSha256: string;
  recordSignature: Buffer;
  keyFingerprint: string;
  /** SHA-256 of the PDF signature's certificate. */
  certificate: string;
  producedAt: string;
}

export function signRecord(record: Buffer, key: KeyObject): Buffer {
  return sign(null, record, key);
}

/**
 * The PDF with its two sealing lines and a `%%EOF` line after them, ready for the PDF signature's
 * update. The record must lie in the PDF once, as an uncompressed stream.
 */
export function seal(input: SealInput, key: KeyObject): Buffer {
  const { pdf, record } = input;
  const stream = Buffer.concat([Buffer.from('stream\n'), record, Buffer.from('\nendstream')]);
  const at = pdf.indexOf(stream);
  if (at < 0 || pdf.indexOf(stream, at + 1) >= 0)
    throw new Error('the record is not attached to the PDF exactly once, uncompressed');
  if (!pdf.subarray(-6).equals(Buffer.from('%%EOF\n'))) throw new Error('the PDF does not end with its %%EOF line');
  const offset = at + 'stream\n'.length;
  const evidence =
    `${EVIDENCE_PREFIX}record=${offset}+${record.length} sha256=${input.recordSha256} key=${input.keyFingerprint} certificate=${input.certificate} ` +
    `produced=${input.producedAt} record-signature=${input.recordSignature.toString('base64')}\n`;
  const signed = Buffer.concat([pdf, Buffer.from(evidence, 'latin1')]);
  return Buffer.concat([
    signed,
    Buffer.from(`${SIGNATURE_PREFIX}${sign(null, signed, key).toString('base64')}\n%%EOF\n`, 'latin1'),
  ]);
}

/** What the sealing lines of a file say, and the bytes they point at. */
export interface Sealed {
  /** Every byte the document signature covers. */
  signed: Buffer;
  signature: Buffer;
  record: Buffer;
  recordSha256: string;
  recordSignature: Buffer;
  keyFingerprint: string;
  /** SHA-256 of the PDF signature's certificate; null in documents made before it. */
  certificate: string | null;
  producedAt: string;
  /** Where the signature line ends: what follows is the PDF signature's update, or nothing. */
  end: number;
}

/** Reads the two sealing lines; a string says what is missing or malformed. */
export function unseal(file: Buffer): Sealed | string {
  const found = file.lastIndexOf(`\n${SIGNATURE_PREFIX}`);
  const lastStart = found + 1;
  const lineEnd = found < 0 ? -1 : file.indexOf(0x0a, lastStart);
  if (found < 0 || lineEnd < 0)
    return 'the file has no "%FlightStatus-Signature: ed25519 …" line (is it an evidence PDF of the Flight Status Service?)';
  const last = file.subarray(lastStart, lineEnd).toString('latin1');
  const signature = Buffer.from(last.slice(SIGNATURE_PREFIX.length), 'base64');
  if (signature.length !== 64) return 'the document signature is not 64 bytes of base64';
  const signed = file.subarray(0, lastStart);
  const evidenceStart = lastStart >= 2 ? signed.lastIndexOf(0x0a, lastStart - 2) + 1 : 0;
  const line = signed.subarray(evidenceStart, lastStart - 1).toString('latin1');
  if (!line.startsWith(EVIDENCE_PREFIX)) return 'the line before the signature is not "%FlightStatus-Evidence: v1 …"';
  const fields = Object.fromEntries(
    line
      .slice(EVIDENCE_PREFIX.length)
      .split(' ')
      .map((part) => [part.slice(0, part.indexOf('=')), part.slice(part.indexOf('=') + 1)]),
  );
  const place = /^(\d+)\+(\d+)$/.exec(fields.record ?? '');
  if (!place || !/^[0-9a-f]{64}$/.test(fields.sha256 ?? '') || !fields['record-signature'] || !fields.key)
    return 'the %FlightStatus-Evidence line is malformed';
  const [offset, length] = [Number(place[1]), Number(place[2])];
  if (offset + length > evidenceStart) return 'the %FlightStatus-Evidence line points past the PDF';
  return {
    signed,
    signature,
    record: signed.subarray(offset, offset + length),
    recordSha256: fields.sha256!,
    recordSignature: Buffer.from(fields['record-signature'], 'base64'),
    keyFingerprint: fields.key,
    certificate: /^[0-9a-f]{64}$/.test(fields.certificate ?? '') ? fields.certificate! : null,
    producedAt: fields.produced ?? '',
    end: lineEnd + 1,
  };
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export function verifies(message: Buffer, signature: Buffer, key: KeyObject): boolean {
  return signature.length === 64 && verify(null, message, key, signature);
}
