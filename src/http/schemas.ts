// Schemas shared by every route: the envelope, the error body, the credit headers. Routes validate
// and serialise with them, and the OpenAPI document is generated from them.
import { Type, type TSchema } from 'typebox';
import { ERROR_STATUS } from './errors.js';

export const ErrorResponse = Type.Object(
  {
    success: Type.Literal(false),
    message: Type.String({ description: 'Human-readable reason, naming the offending field where there is one' }),
    code: Type.Union(
      Object.keys(ERROR_STATUS).map((k) => Type.Literal(k)),
      {
        description: 'Machine-readable error kind (see docs/errors.md)',
      },
    ),
  },
  { additionalProperties: false, title: 'Error', description: 'Error envelope' },
);

export function Envelope<T extends TSchema>(data: T, description: string) {
  return Type.Object({ success: Type.Literal(true), data }, { additionalProperties: false, description });
}

export const DateTime = (description: string) => Type.String({ format: 'date-time', description });

/** A route's PDF answer, for the OpenAPI document (the body is binary; see sendPdf). */
export const PdfBody = (description: string) => ({
  description,
  content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
});

/** Error responses by status, for route schemas (serialisation and documentation). */
export type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS;

export function errors(...statuses: ErrorStatus[]): Record<number, typeof ErrorResponse> {
  return Object.fromEntries(
    statuses.map((status) => {
      const schema = { ...ErrorResponse, description: ERROR_DESCRIPTIONS[status] };
      if (status === 429) return [status, { ...schema, headers: { ...CREDIT_HEADERS_DOC, ...RETRY_AFTER_DOC } }];
      return [status, CREDITED_ERRORS.has(status) ? withCreditHeaders(schema) : schema];
    }),
  ) as Record<number, typeof ErrorResponse>;
}

/** Refusals that still tell the caller its credit position (docs/metering.md, "Headers"). */
const CREDITED_ERRORS = new Set<number>([400, 402, 403, 429, 500]);

const ERROR_DESCRIPTIONS = {
  400: 'The request is invalid; `message` names the offending field',
  401: 'Missing or invalid API key (no credit headers)',
  402: 'No active plan, or the subscription is canceled or past due; no credit taken',
  403: 'The key or its account is disabled; no credit taken',
  404: 'Not found',
  409: 'Conflict with existing data, or an Idempotency-Key reused with another request',
  413: 'Request body too large',
  414: 'A path segment of the URL is over 200 characters',
  415: 'The body is not application/json',
  429: 'Allowance of the window used up and overage not enabled; no credit taken',
  500: 'Internal failure; safe to retry',
  503: 'The request could not be recorded (database unavailable or full); not served, no credit taken; retry later',
} as const;

/** The five X-Credits-* headers (docs/metering.md, "Headers"), documented on the responses that carry them. */
export const CREDIT_HEADERS_DOC = Object.fromEntries(
  Object.entries({
    'X-Credits-Included': 'Requests included in the current window, or `unlimited` on internal accounts',
    'X-Credits-Used': 'Requests consumed in the window, including this one',
    'X-Credits-Remaining':
      'Requests left before the ceiling (reaches 0 one request before a 429); `unlimited` on internal accounts',
    'X-Credits-Overage': 'Requests taken beyond the allowance; 0 unless overage is enabled',
    'X-Credits-Period-End': 'When the window closes and the allowance resets (ISO 8601 UTC)',
  }).map(([name, description]) => [name, { type: 'string', description }]),
);

const RETRY_AFTER_DOC = {
  'Retry-After': {
    type: 'string',
    description: 'Whole seconds until the window ends and the allowance resets (rounded up)',
  },
};

/** A response schema that also documents the credit headers it carries. */
export function withCreditHeaders<T extends object>(schema: T): T {
  return { ...schema, headers: CREDIT_HEADERS_DOC };
}
