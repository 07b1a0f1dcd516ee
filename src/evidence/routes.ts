// GET /api/v1/flights/evidence: the status endpoint's query (the same parser), metered as it is (one
// credit, taken before the query is checked), answered with a signed PDF of the flight's record; and
// GET /api/v1/evidence/key: the public key that checks it, open to anyone (a court or an airline must
// be able to fetch it without an account), as JSON or as PEM.
// Without a key (PostgreSQL and FLIGHTSTATUS_EVIDENCE_KEY unset) both answer 503 naming the setting,
// and the PDF route only authenticates: a document the service cannot sign costs no credit.
import { X509Certificate } from 'node:crypto';
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors.js';
import { KEY_SECURITY } from '../http/openapi.js';
import { CREDIT_HEADERS_DOC, Envelope, errors, PdfBody } from '../http/schemas.js';
import { sendPdf } from '../http/results.js';
import type { HttpServer } from '../http/server.js';
import { parseFlightQuery, querySchema, type FlightQuery, type FlightResolver } from '../flights/index.js';
import type { EvidenceService } from './service.js';

const PublicKeySchema = Type.Object(
  {
    algorithm: Type.Literal('Ed25519'),
    publicKeyPem: Type.String({
      description: 'The public key, SubjectPublicKeyInfo PEM (what `openssl pkeyutl -pubin -inkey` reads)',
    }),
    fingerprint: Type.String({
      description:
        "SHA-256 of the public key's DER, lower-case hex; every evidence PDF names the fingerprint of the key that signed it",
    }),
    certificate: Type.Object(
      {
        pem: Type.String({
          description: 'The X.509 certificate of the PDF signature (PAdES) that PDF readers show, PEM',
        }),
        fingerprint: Type.String({
          description:
            "SHA-256 of the certificate's DER, lower-case hex; every evidence PDF's evidence line names it (`certificate=`)",
        }),
        signer: Type.String({
          description: "The name readers show as the signer (the certificate subject's common name)",
        }),
        selfSigned: Type.Boolean({
          description:
            "true: the default certificate, self-signed and derived from the evidence key; false: the operator's (FLIGHTSTATUS_EVIDENCE_CERT)",
        }),
      },
      {
        additionalProperties: false,
        description: 'The certificate of the standard PDF signature (docs/evidence.md, "The PDF signature")',
      },
    ),
  },
  { title: 'EvidenceKey', additionalProperties: false },
);

const unavailable = (what: string) => ({
  ...errors(503)[503],
  description: `${what}; or the request could not be recorded (database unavailable or full); no credit taken`,
});

const PDF = {
  ...PdfBody('The signed evidence PDF (docs/evidence.md)'),
  headers: {
    ...CREDIT_HEADERS_DOC,
    'X-Evidence-Record-Sha256': {
      type: 'string',
      description: 'SHA-256 of the record the PDF renders (its attached record.json), hex',
    },
  },
};

export function evidenceRoutes(app: HttpServer, deps: { resolver: FlightResolver; evidence: EvidenceService }): void {
  const { evidence, resolver } = deps;
  app.get(
    '/api/v1/flights/evidence',
    {
      config: { access: evidence.missing ? 'key' : 'metered' },
      exposeHeadRoute: false,
      schema: {
        summary: 'A signed evidence PDF of one flight',
        description:
          'The same query as GET /api/v1/flights/status (`screenshot` is accepted and ignored: the document always holds the proof image), ' +
          'metered the same way: one credit per request, taken before the query is checked, so a 400, a 404 (no such flight: nothing to attest) ' +
          "and a 500 (no provider could be asked) cost a credit too. The PDF shows the proof image, each source's times, the verdict, the " +
          'EU261 / UK261 assessment with its legal basis and claim deadlines, and the circumstances; it carries the record it renders as an ' +
          "attached file, and is signed with the service's Ed25519 evidence key (GET /api/v1/evidence/key), checkable with openssl.",
        tags: ['evidence'],
        security: KEY_SECURITY,
        querystring: querySchema(),
        response: {
          200: PDF,
          ...errors(400, 401, 402, 403, 404, 429, 500),
          503: unavailable('No evidence key is configured on this service (FLIGHTSTATUS_EVIDENCE_KEY)'),
        },
      },
      validatorCompiler: () => (data: unknown) => {
        const parsed = parseFlightQuery((data ?? {}) as Record<string, string | string[] | undefined>);
        return parsed.ok ? { value: parsed.query } : { error: new ApiError('invalid_request', parsed.message) };
      },
    },
    async (request, reply) => {
      if (evidence.missing) throw new ApiError('unavailable', evidence.missing);
      const answer = await evidence.answer(
        resolver,
        request.query as unknown as FlightQuery,
        contextOf(request, reply),
      );
      if (answer.kind === 'unavailable') throw new ApiError('internal', answer.message);
      if (answer.kind === 'not_found') throw new ApiError('not_found', answer.message);
      const { document } = answer;
      return sendPdf(reply.header('x-evidence-record-sha256', document.recordSha256), document.pdf, document.filename);
    },
  );

  app.get(
    '/api/v1/evidence/key',
    {
      config: { access: 'public' },
      schema: {
        summary: 'The public key and the certificate that check evidence PDFs',
        description:
          'Open to anyone, no credential: whoever holds an evidence PDF can fetch the key that checks it, and the certificate of its PDF signature. ' +
          "`format=pem` answers the public key's PEM alone (`curl -s '…/api/v1/evidence/key?format=pem' > evidence-key.pem`), `format=certificate` the certificate's.",
        tags: ['evidence'],
        querystring: Type.Object({
          format: Type.Optional(
            Type.Union([Type.Literal('json'), Type.Literal('pem'), Type.Literal('certificate')], {
              description:
                "json (default): the envelope; pem: the public key as PEM; certificate: the PDF signature's certificate as PEM",
            }),
          ),
        }),
        response: {
          200: {
            description: "The evidence key's public half",
            content: {
              'application/json': { schema: Envelope(PublicKeySchema, "The evidence key's public half") },
              'application/x-pem-file': {
                schema: { type: 'string', description: 'The public key, SubjectPublicKeyInfo PEM' },
              },
            },
          },
          ...errors(400),
          503: unavailable('No evidence key is configured on this service (FLIGHTSTATUS_EVIDENCE_KEY)'),
        },
      },
    },
    async (request, reply) => {
      const key = evidence.publicKey;
      if (!key) throw new ApiError('unavailable', evidence.missing ?? 'No evidence key');
      if (request.query.format === 'pem') return reply.type('application/x-pem-file').send(key.publicKeyPem);
      const signer = (await evidence.pdfSigner())!;
      const pem = new X509Certificate(signer.certificate).toString();
      if (request.query.format === 'certificate') return reply.type('application/x-pem-file').send(pem);
      return {
        success: true as const,
        data: {
          ...key,
          certificate: { pem, fingerprint: signer.fingerprint, signer: signer.name, selfSigned: signer.selfSigned },
        },
      };
    },
  );
}

/** The resolve is cancelled when the client hangs up, as on the status endpoint. */
function contextOf(request: FastifyRequest, reply: FastifyReply): { requestId: string; signal: AbortSignal } {
  const controller = new AbortController();
  if (reply.raw.destroyed) controller.abort();
  else reply.raw.once('close', () => !reply.raw.writableFinished && controller.abort());
  return { requestId: request.id, signal: controller.signal };
}
