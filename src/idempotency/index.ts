// Idempotency-Key on POST, as Stripe clients expect (docs/idempotency.md): the same key and body
// within 24 hours answers the first response again, same status and body, with
// `Idempotent-Replayed: true`; the same key with another request is a 409. Keys are scoped per
// account and stored in the database, so a retry reaching another process is answered the same.
// Stored answers are sealed (they can hold a webhook secret); expired ones are pruned hourly.
import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Database } from '../db/index.js';
import { ApiError } from '../http/errors.js';
import type { HttpServer } from '../http/server.js';
import { IdempotencyRepository } from './repository.js';

/** How long a key holds its answer (Stripe's 24 hours). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60_000;
/** Longest key accepted (Stripe's limit); a UUID is 36. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
export const REPLAYED_HEADER = 'idempotent-replayed';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set while this request holds an Idempotency-Key whose answer is to be stored. */
    idempotency: { accountId: string; key: string } | null;
  }
}

/**
 * Seals what is stored of an answer: a replay must return the answer as first sent, and the answer to
 * creating or rotating a webhook endpoint holds its secret, which must never be in clear in a table.
 * The webhook secrets' box (AES-256-GCM, the context as associated data) is one.
 */
export interface AnswerSeal {
  seal(context: string, text: string): string;
  /** Throws when `stored` does not open (another key, or another row's answer). */
  open(context: string, stored: string): string;
  /** Whether `stored` came from `seal` (answers stored in clear by an earlier version are sealed at start). */
  isSealed(stored: string): boolean;
}

/** Associated data of a stored answer: it opens only as the answer of that account's key. */
const sealContext = (accountId: string, key: string) => `idempotency:${accountId}:${key}`;

export interface Idempotency {
  /** Deletes the answers that expired before `now` (the prune job, hourly); returns how many. */
  prune(now: number): Promise<number>;
  /** Seals the answers an earlier version stored in clear (at start); returns how many. */
  sealStored(): Promise<number>;
}

export function installIdempotency(
  app: HttpServer,
  deps: { db: Database; clock: Clock; seal: AnswerSeal },
): Idempotency {
  const repository = new IdempotencyRepository(deps.db);
  const { seal } = deps;
  app.decorateRequest('idempotency', null);

  // preHandler: after the guard (the account is known) and after validation (a request the schema
  // refuses is not remembered, so it can be corrected and sent again with the same key).
  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST' || request.principal === null) return;
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    const key = Array.isArray(header) ? header.join(', ') : header;
    if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
      throw new ApiError(
        'invalid_request',
        `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters without spaces (got ${key.length} characters)`,
      );
    }
    const accountId = request.principal.account.id;
    const fingerprint = createHash('sha256')
      .update(`${request.method} ${request.url}\n${JSON.stringify(request.body) ?? ''}`)
      .digest('hex');
    const now = deps.clock.now();
    const claim = await repository.claim(accountId, key, fingerprint, now, now - IDEMPOTENCY_TTL_MS);
    if (claim.kind === 'claimed') {
      request.idempotency = { accountId, key };
      return;
    }
    const { answer } = claim;
    if (answer.fingerprint !== fingerprint) {
      throw new ApiError(
        'conflict',
        'This Idempotency-Key was already used with another request (method, path or body) in the last 24 hours; use a new key for a new request',
      );
    }
    if (answer.status === null || answer.body === null) {
      throw new ApiError(
        'conflict',
        'A request with this Idempotency-Key is still in progress; retry once it has been answered',
      );
    }
    reply.code(answer.status).header(REPLAYED_HEADER, 'true');
    if (answer.contentType) reply.type(answer.contentType);
    return reply.send(seal.open(sealContext(accountId, key), answer.body));
  });

  // The answer as it leaves (serialised, not yet compressed) becomes the key's answer. A failure on
  // our side (5xx) frees the key instead, so the retry the 500 invites runs again.
  app.addHook('onSend', async (request, reply, payload) => {
    const held = request.idempotency;
    if (held === null) return payload;
    request.idempotency = null;
    try {
      if (reply.statusCode >= 500 || typeof payload !== 'string') {
        await repository.release(held.accountId, held.key);
      } else {
        const contentType = reply.getHeader('content-type');
        await repository.complete(held.accountId, held.key, {
          status: reply.statusCode,
          contentType: typeof contentType === 'string' ? contentType : null,
          body: seal.seal(sealContext(held.accountId, held.key), payload),
        });
      }
    } catch (error) {
      // The answer itself stands; a retry with the key then finds it in progress (409) until it
      // expires, which is safer than running the request twice.
      request.log.error({ err: error }, 'idempotency answer could not be stored');
    }
    return payload;
  });

  return {
    prune: (now) => repository.prune(now - IDEMPOTENCY_TTL_MS),
    sealStored: () =>
      repository.sealStored(
        (stored) => seal.isSealed(stored),
        (row) => seal.seal(sealContext(row.accountId, row.key), row.body),
      ),
  };
}
