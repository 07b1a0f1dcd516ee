// The success envelope and the one mapping from a service's Result to HTTP, shared by every route
// adapter over a service that answers with Result (accounts, webhooks).
import type { FastifyReply } from 'fastify';
import type { Result } from '../result.js';
import { ApiError } from './errors.js';

export function envelope<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

export function unwrap<T>(result: Result<T>): T {
  switch (result.kind) {
    case 'ok':
      return result.value;
    case 'not_found':
      throw new ApiError('not_found', result.message);
    case 'conflict':
      throw new ApiError('conflict', result.message);
    case 'invalid':
      throw new ApiError('invalid_request', result.message);
  }
}

/**
 * A PDF as the answer: shown in the browser (`inline`) or saved (`attachment`) as `filename`. The
 * route's schema documents the binary body (PdfBody); the serializer is not involved for a Buffer.
 */
export function sendPdf(
  reply: FastifyReply,
  pdf: Buffer,
  filename: string,
  disposition: 'inline' | 'attachment' = 'inline',
): FastifyReply {
  return reply
    .type('application/pdf')
    .header('content-disposition', `${disposition}; filename="${filename}"`)
    .send(pdf as unknown as string);
}
