// The evidence PDF's standard signature (docs/evidence.md, "The PDF signature"): PAdES baseline B-B,
// the kind PDF readers show ("signed by …, not modified since"). An incremental update adds a
// signature field whose /Contents holds a detached CMS SignedData (SubFilter ETSI.CAdES.detached)
// over the /ByteRange: every byte of the file but the /Contents value itself.
//
// The update and the byte range are @signpdf's (placeholder-plain writes the update onto any PDF,
// signpdf fills the byte range and the signature in); the CMS is built here with pkijs, because
// PAdES needs the ESS signing-certificate-v2 attribute that node-forge's PKCS#7 cannot write. The
// signed attributes are content-type, message-digest and signing-certificate-v2; the claimed signing
// time is the signature dictionary's /M (PAdES leaves the CMS signing-time attribute out). Signed by
// Node's crypto: RSA PKCS#1 v1.5 (deterministic) or ECDSA, with SHA-256.
import { createHash, sign, verify, X509Certificate } from 'node:crypto';
import { plainAddPlaceholder } from '@signpdf/placeholder-plain';
import { SignPdf } from '@signpdf/signpdf';
import { Signer, SUBFILTER_ETSI_CADES_DETACHED } from '@signpdf/utils';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { certificateFingerprint, type PdfSigner } from './certificate.js';

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  sha256: '2.16.840.1.101.3.4.2.1',
  rsaEncryption: '1.2.840.113549.1.1.1',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
};

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();
const view = (bytes: Buffer) =>
  bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

/** ESS signing-certificate-v2 (RFC 5035): the signer's certificate hash (SHA-256, the default) and issuer and serial. */
function signingCertificateV2(certificate: pkijs.Certificate, der: Buffer): asn1js.Sequence {
  const issuerSerial = new pkijs.IssuerSerial({
    issuer: new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: certificate.issuer })] }),
    serialNumber: certificate.serialNumber,
  });
  const essCertIdV2 = new asn1js.Sequence({
    value: [new asn1js.OctetString({ valueHex: view(sha256(der)) }), issuerSerial.toSchema()],
  });
  return new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] });
}

/** The DER of signed attributes as they are signed: the [0] IMPLICIT set written as a SET (RFC 5652 §5.4). */
function signedAttributesDer(attributes: pkijs.SignedAndUnsignedAttributes): Buffer {
  const der = Buffer.from(attributes.toSchema().toBER());
  der[0] = 0x31;
  return der;
}

/** A detached CMS SignedData over `content`, as PAdES B-B asks. */
export function cadesDetached(content: Buffer, signer: PdfSigner): Buffer {
  const certificate = pkijs.Certificate.fromBER(signer.certificate);
  const attributes = new pkijs.SignedAndUnsignedAttributes({
    type: 0,
    attributes: [
      new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
      new pkijs.Attribute({
        type: OID.messageDigest,
        values: [new asn1js.OctetString({ valueHex: view(sha256(content)) })],
      }),
      new pkijs.Attribute({
        type: OID.signingCertificateV2,
        values: [signingCertificateV2(certificate, signer.certificate)],
      }),
    ],
  });
  const ec = signer.key.asymmetricKeyType === 'ec';
  const signature = sign('sha256', signedAttributesDer(attributes), signer.key);
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: certificate.issuer, serialNumber: certificate.serialNumber }),
    digestAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 }),
    signedAttrs: attributes,
    signatureAlgorithm: ec
      ? new pkijs.AlgorithmIdentifier({ algorithmId: OID.ecdsaWithSha256 })
      : new pkijs.AlgorithmIdentifier({ algorithmId: OID.rsaEncryption, algorithmParams: new asn1js.Null() }),
    signature: new asn1js.OctetString({ valueHex: view(signature) }),
  });
  const signedData = new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 })],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    certificates: [certificate, ...signer.chain.map((der) => pkijs.Certificate.fromBER(der))],
    signerInfos: [signerInfo],
  });
  const contentInfo = new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) });
  return Buffer.from(contentInfo.toSchema().toBER());
}

class CadesSigner extends Signer {
  constructor(private readonly signer: PdfSigner) {
    super();
  }

  override async sign(content: Buffer): Promise<Buffer> {
    return cadesDetached(content, this.signer);
  }
}

export interface PdfSignatureFields {
  /** When the signature is made: the dictionary's /M. */
  at: Date;
  reason: string;
  /** Where the signer can be reached (the service's address), or empty. */
  contactInfo: string;
  location: string;
  appName: string;
}

/** The PDF (ending with a `%%EOF` line) with an incremental update that signs all of it. */
export async function padesSign(pdf: Buffer, signer: PdfSigner, fields: PdfSignatureFields): Promise<Buffer> {
  const withPlaceholder = plainAddPlaceholder({
    pdfBuffer: pdf,
    reason: fields.reason,
    contactInfo: fields.contactInfo,
    name: signer.name,
    location: fields.location,
    signingTime: fields.at,
    // Room for the CMS: the certificates it carries, the signature and the attributes.
    signatureLength: 2048 + signer.certificate.length + signer.chain.reduce((sum, der) => sum + der.length, 0),
    subFilter: SUBFILTER_ETSI_CADES_DETACHED,
    appName: fields.appName,
  });
  return new SignPdf().sign(withPlaceholder, new CadesSigner(signer));
}

/** What the last PDF signature of a file says, checked against the bytes it covers. */
export interface PdfSignatureCheck {
  /** The byte range starts at 0 and ends at the file's end, and leaves out only the /Contents value. */
  coversFile: boolean;
  /** Where the signed update begins: the first byte after the excluded /Contents value's start. */
  contentsAt: number;
  /** The CMS's message digest equals SHA-256 of the byte range. */
  digest: boolean;
  /** The signature over the signed attributes verifies with the certificate's public key. */
  signature: boolean;
  subFilter: string | null;
  /** SHA-256 of the signer's certificate DER. */
  certificate: string;
  signer: string;
}

/** Reads and checks the file's last PDF signature; a string says why it cannot (none, malformed). */
export function checkPdfSignature(file: Buffer): PdfSignatureCheck | string {
  const text = file.toString('latin1');
  const at = text.lastIndexOf('/ByteRange');
  if (at < 0) return 'the file has no PDF signature (/ByteRange)';
  const range = /^\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(text.slice(at, at + 120));
  if (!range) return "the PDF signature's /ByteRange is malformed";
  const [start, length1, start2, length2] = range.slice(1).map(Number) as [number, number, number, number];
  if (start2 < length1 || start2 + length2 > file.length || file[length1] !== 0x3c || file[start2 - 1] !== 0x3e)
    return "the PDF signature's /ByteRange does not frame its /Contents";
  // The CMS and the zeros that pad it to the placeholder's size: the DER says its own length, and a
  // signature may end in a zero byte, so the padding is left for the parser to stop before.
  const contents = Buffer.from(text.slice(length1 + 1, start2 - 1), 'hex');
  const covered = Buffer.concat([file.subarray(start, length1), file.subarray(start2, start2 + length2)]);
  let signedData: pkijs.SignedData;
  try {
    signedData = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(contents).content });
  } catch {
    return "the PDF signature's /Contents is not a CMS SignedData";
  }
  const info = signedData.signerInfos[0];
  const certificates = (signedData.certificates ?? []).filter(
    (c): c is pkijs.Certificate => c instanceof pkijs.Certificate,
  );
  const sid = info?.sid;
  const own = certificates.find(
    (c) =>
      sid instanceof pkijs.IssuerAndSerialNumber &&
      c.serialNumber.isEqual(sid.serialNumber) &&
      c.issuer.isEqual(sid.issuer),
  );
  if (!info?.signedAttrs || !own) return 'the PDF signature names no certificate it carries';
  const attribute = (oid: string) => info.signedAttrs!.attributes.find((a) => a.type === oid)?.values[0];
  const digest = attribute(OID.messageDigest);
  const der = Buffer.from(own.toSchema().toBER());
  const x509 = new X509Certificate(der);
  const subFilter = /\/SubFilter\s*\/([A-Za-z0-9.]+)/.exec(text.slice(text.lastIndexOf('/Type /Sig'), at))?.[1] ?? null;
  return {
    coversFile: start === 0 && start2 + length2 === file.length,
    contentsAt: length1,
    digest: digest instanceof asn1js.OctetString && Buffer.from(digest.valueBlock.valueHexView).equals(sha256(covered)),
    signature: verify(
      'sha256',
      signedAttributesDer(info.signedAttrs),
      x509.publicKey,
      Buffer.from(info.signature.valueBlock.valueHexView),
    ),
    subFilter,
    certificate: certificateFingerprint(der),
    signer: /(?:^|\n)CN=([^\n]*)/.exec(x509.subject)?.[1] ?? x509.subject,
  };
}
