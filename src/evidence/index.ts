// Evidence PDFs (docs/evidence.md): a flight's record rendered as a signed, reproducible PDF, the key
// that signs it, and the check of a document against the key's public half.
export { createEvidence, EvidenceService, type EvidenceAnswer, type EvidenceDocument } from './service.js';
export { evidenceRoutes } from './routes.js';
export { parsePublicKey, publicKeyOf, type PublicEvidenceKey } from './key.js';
export { evidenceKeyFilePath, EVIDENCE_KEY_VARIABLE } from './keyfile.js';
export { canonicalJson, evidenceRecord } from './record.js';
export { verifyEvidence, type Verification } from './verify.js';
export { selfSignedSigner, type PdfSigner } from './certificate.js';
export { checkPdfSignature, type PdfSignatureCheck } from './pades.js';
