// The certificate of the evidence PDF's standard signature as the operator gives it: a PKCS#12 file
// (FLIGHTSTATUS_EVIDENCE_CERT) read into the signer the evidence capability signs with. The default,
// self-signed certificate is made from the evidence key in src/evidence/certificate.ts.
//
// node-forge reads PKCS#12 (Node's crypto does not).
import { createHash, createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
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

export function signerOf(key: KeyObject, certificate: Buffer, chain: Buffer[], selfSigned: boolean): PdfSigner {
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
    p12 = forge.pkcs12.pkcs12FromAsn1(
      forge.asn1.fromDer(forge.util.createBuffer(file.toString('binary'))),
      false,
      password,
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return /mac|password|decrypt/i.test(message)
      ? 'it does not open with FLIGHTSTATUS_EVIDENCE_CERT_PASSWORD (wrong password?)'
      : 'it is not a PKCS#12 file (.p12 / .pfx)';
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
  if (!['rsa', 'ec'].includes(key.asymmetricKeyType ?? ''))
    return `its private key is ${key.asymmetricKeyType}; PDF readers check RSA and EC (ECDSA) signatures`;
  const publicDer = createPublicKey(key).export({ format: 'der', type: 'spki' });
  const certificates = bags(forge.pki.oids.certBag!).flatMap((bag) =>
    bag.cert ? [der(forge.pki.certificateToAsn1(bag.cert))] : bag.asn1 ? [der(bag.asn1)] : [],
  );
  const own = certificates.find((der) =>
    new X509Certificate(der).publicKey.export({ format: 'der', type: 'spki' }).equals(publicDer),
  );
  if (!own) return 'it holds no certificate for its private key';
  const x509 = new X509Certificate(own);
  if (!x509.checkPrivateKey(key)) return 'its certificate does not match its private key';
  return signerOf(
    key,
    own,
    certificates.filter((der) => der !== own),
    false,
  );
}
