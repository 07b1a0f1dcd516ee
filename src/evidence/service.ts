// Evidence PDFs (docs/evidence.md): a flight's record, resolved as the status endpoint resolves it,
// rendered with its proof image and signed with the service's evidence key. The two doors (the API
// route and the dashboard) take the credit; this turns a query into a document or a reason why not.
import type { KeyObject } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { DatabaseTarget } from '../config.js';
import type { Logger } from '../logger.js';
import type { ReferenceAirports } from '../airports/index.js';
import {
  ProofUnavailableError,
  type FlightQuery,
  type FlightResolver,
  type FlightStatusData,
  type ProofRenderer,
  type ResolveContext,
} from '../flights/index.js';
import { selfSignedSigner, type PdfSigner } from './certificate.js';
import { publicKeyOf, type PublicEvidenceKey } from './key.js';
import { chooseEvidenceKey, reportEvidenceKey } from './keyfile.js';
import { padesSign } from './pades.js';
import { evidenceRecord } from './record.js';
import { evidencePdf } from './render.js';
import { seal, signRecord } from './sign.js';

export interface EvidenceDeps {
  clock: Clock;
  logger: Logger;
  proof: ProofRenderer;
  airports: ReferenceAirports;
  version: string;
  publicUrl: string | null;
  /** The PDF signature's signer (FLIGHTSTATUS_EVIDENCE_CERT); null: self-signed, made from the evidence key. */
  certificate: PdfSigner | null;
}

export interface EvidenceDocument {
  pdf: Buffer;
  /** SHA-256 of the record it renders. */
  recordSha256: string;
  filename: string;
}

/** What a query gives: a document, or why there is none (a flight not found, providers unavailable). */
export type EvidenceAnswer =
  | { kind: 'document'; document: EvidenceDocument }
  | { kind: 'not_found'; message: string }
  | { kind: 'unavailable'; message: string };

export class EvidenceService {
  /** The key pair, or why there is none (the routes answer 503 with it). */
  private readonly key: { key: KeyObject; public: PublicEvidenceKey } | { missing: string };

  constructor(
    choice: { key: KeyObject } | { missing: string },
    private readonly deps: EvidenceDeps,
  ) {
    this.key = 'key' in choice ? { key: choice.key, public: publicKeyOf(choice.key) } : choice;
  }

  /** Null when no key is configured. */
  get publicKey(): PublicEvidenceKey | null {
    return 'public' in this.key ? this.key.public : null;
  }

  /** Who signs the PDF signature: the configured certificate, or the self-signed one of the evidence key. Null when no key is configured. */
  async pdfSigner(): Promise<PdfSigner | null> {
    if (!('public' in this.key)) return null;
    return this.deps.certificate ?? selfSignedSigner(this.key.key, this.key.public.fingerprint);
  }

  /** Why evidence is unavailable on this service, or null. */
  get missing(): string | null {
    return 'missing' in this.key ? this.key.missing : null;
  }

  /** Resolves the query as GET /api/v1/flights/status does (never with a proof image: the document renders its own) and renders its document. */
  async answer(resolver: FlightResolver, query: FlightQuery, context: ResolveContext): Promise<EvidenceAnswer> {
    const answer = await resolver.resolve({ ...query, screenshot: false }, context);
    if (answer.kind === 'unavailable') return { kind: 'unavailable', message: answer.message };
    const { data } = answer;
    if (!data.selected) {
      const leg = [query.origin && `from ${query.origin}`, query.destination && `to ${query.destination}`]
        .filter(Boolean)
        .join(' ');
      return {
        kind: 'not_found',
        message: `No flight ${query.flightNumber} on ${query.flightDate}${leg ? ` ${leg}` : ''} was found; nothing to attest`,
      };
    }
    return { kind: 'document', document: await this.document(data) };
  }

  /** The signed PDF of a found flight's record. */
  async document(data: FlightStatusData): Promise<EvidenceDocument> {
    if (!('public' in this.key)) throw new Error(this.key.missing);
    const { key } = this.key;
    const { clock, logger } = this.deps;
    const record = evidenceRecord(data);
    const producedAt = clock.now();
    let proof;
    try {
      proof = await this.deps.proof.render(record.data, producedAt);
    } catch (error) {
      if (!(error instanceof ProofUnavailableError)) throw error;
      logger.warn({ err: error.message }, 'proof image unavailable for an evidence PDF');
      proof = { unavailable: error.message };
    }
    const recordSignature = signRecord(record.bytes, key);
    const keyFingerprint = this.key.public.fingerprint;
    const signer = (await this.pdfSigner())!;
    const pdf = await evidencePdf({
      ...this.deps,
      record,
      producedAt,
      proof,
      recordSignature,
      keyFingerprint,
      pdfSigner: signer,
    });
    const producedIso = new Date(producedAt).toISOString();
    const sealed = seal(
      {
        pdf,
        record: record.bytes,
        recordSha256: record.sha256,
        recordSignature,
        keyFingerprint,
        certificate: signer.fingerprint,
        producedAt: producedIso,
      },
      key,
    );
    const signed = await padesSign(sealed, signer, {
      at: new Date(producedAt),
      reason: `The record of flight ${data.flightNumber} on ${data.flightDate} (SHA-256 ${record.sha256}), as Flight Status Service found it`,
      contactInfo: this.deps.publicUrl ?? '',
      location: this.deps.publicUrl ? new URL(this.deps.publicUrl).host : '',
      appName: `Flight Status Service ${this.deps.version}`,
    });
    return {
      pdf: signed,
      recordSha256: record.sha256,
      filename: `evidence-${data.flightNumber.replace(/[^A-Za-z0-9]/g, '')}-${data.flightDate}.pdf`,
    };
  }
}

/** The evidence service of a process: its key chosen (and the choice logged) per keyfile.ts. */
export function createEvidence(
  target: DatabaseTarget,
  configured: KeyObject | null,
  deps: EvidenceDeps,
): EvidenceService {
  const choice = chooseEvidenceKey(target, configured);
  const service = new EvidenceService(choice.kind === 'key' ? { key: choice.key } : { missing: choice.reason }, deps);
  reportEvidenceKey(deps.logger, choice, service.publicKey?.fingerprint ?? null);
  return service;
}
