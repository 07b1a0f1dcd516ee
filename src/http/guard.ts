// Authentication and metering as one hook, declared per route with `config.access`:
//   'public'  no credential (health, docs)
//   'key'     a valid key of an enabled account with an active plan; credit headers, nothing taken
//   'billing' a valid key of an enabled account in any subscription state (invoices: a past-due
//             account must see what it owes); credit headers, nothing taken
//   'metered' the same, then one credit taken before the handler runs (or 429), written together with
//             the request's usage row; the row is settled to the status sent before the response leaves
// The hook runs at onRequest, before body and query validation, so a request with a bad query is
// still authorised and charged (docs/errors.md: the 400 costs a credit and is logged against the key).
// Who may call and what it costs is decided by the metering gate in one step (metering/gate.ts).
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { credentialConflict, keyParametersIn, type Principal } from '../auth/index.js';
import type { Clock } from '../clock.js';
import type { WriteOutcome } from '../db/index.js';
import { iso } from '../clock.js';
import {
  creditHeaders,
  retryAfter,
  type Admission,
  type Charge,
  type CreditPosition,
  type Gate,
  type MeteringService,
  type RefusalLog,
} from '../metering/index.js';
import { ApiError, errorBody, UNRECORDED_MESSAGE, WITHHELD_MESSAGE } from './errors.js';
import { rejectedByParser, sendError, type HttpServer } from './server.js';

export type Access = 'public' | 'key' | 'billing' | 'metered';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** Set when this request took a credit: the credit and the usage row written with it. */
    charge: Charge | null;
    /** The credit position reported in this request's headers. */
    credits: CreditPosition | null;
  }
}

/** Longest query string kept in a usage row. */
const MAX_LOGGED_QUERY = 2048;

const AUTH_CHALLENGE = { 'www-authenticate': 'Bearer realm="flightstatus"' };

const CREDIT_HEADER_NAMES = Object.keys(
  creditHeaders({ included: 0, used: 0, remaining: 0, overage: 0, window: { start: 0, end: 0 } }),
);

/**
 * `writes` hears the outcome of every metered write (a credit with its usage row, a settlement):
 * readiness follows it, so a full disk makes /api/ready 503 with the first metered 503.
 */
export function installGuard(
  app: HttpServer,
  deps: { gate: Gate; metering: MeteringService; clock: Clock; refusals: RefusalLog; writes: WriteOutcome },
): void {
  const { gate, metering, clock, refusals, writes } = deps;
  app.decorateRequest('principal', null);
  app.decorateRequest('charge', null);
  app.decorateRequest('credits', null);

  app.addHook('onRequest', async (request, reply) => {
    // A key in the URL is refused on every route, before anything else looks at it (the logger
    // redacts it from the request's log lines). Answered here rather than thrown, so that a scope
    // with its own error handler (the dashboard's HTML pages) gives the same 400, not a 500 page.
    const inQuery = keyParametersIn(request.url);
    if (inQuery.length > 0) {
      return sendError(
        reply,
        'key_in_query',
        `API keys are not accepted in the URL (query parameter ${inQuery.map((n) => JSON.stringify(n.slice(0, 40))).join(', ')}): ` +
          'URLs end up in logs and browser history. Send the key as "Authorization: Bearer <key>" or in the X-Api-Key header, ' +
          'and treat a key that was sent in a URL as exposed.',
      );
    }
    const access = request.routeOptions.config.access ?? 'public';
    if (access === 'public') return;
    const conflict = credentialConflict(request.raw.rawHeaders);
    if (conflict !== null) throw new ApiError('invalid_request', conflict);
    // Refused before authentication, so they take no credit and write no usage row: a request the
    // HTTP parser rejected (already answered 400 on its socket), and a metered lookup with a body,
    // which has none to give and whose body the parser could still reject after a credit was taken.
    if (rejectedByParser(request.raw)) throw new ApiError('invalid_request', 'Malformed HTTP request');
    if (access === 'metered' && hasBody(request.raw.headers)) {
      throw new ApiError('invalid_request', 'A flight lookup takes no request body; send the query in the URL');
    }

    const at = clock.now();
    const usage =
      access === 'metered'
        ? {
            at,
            endpoint: `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`,
            query: queryOf(request).slice(0, MAX_LOGGED_QUERY),
          }
        : null;
    let admission: Admission;
    try {
      admission = await gate.admit(request.headers, usage);
    } catch (error) {
      // The key, the credit or the usage row could not be read or written: nothing was taken (the
      // credit and its row are one write), so the request is refused before any work.
      request.log.error({ err: error }, 'admission could not be decided or recorded');
      if (usage) writes.failed(error);
      throw new ApiError('unavailable', UNRECORDED_MESSAGE);
    }
    if (admission.kind === 'unauthenticated') {
      throw new ApiError(
        'unauthorized',
        admission.reason === 'missing'
          ? 'Missing API key: send it as "Authorization: Bearer <key>" or in the X-Api-Key header'
          : 'Invalid API key',
        AUTH_CHALLENGE,
      );
    }
    const headers = creditHeaders(admission.position);
    // A metered request refused before its credit has no usage row: counted apart (dashboard chart).
    if (usage) refusals.noteRefused(admission, at);
    switch (admission.kind) {
      case 'forbidden':
        throw new ApiError(
          'forbidden',
          admission.reason === 'account_disabled' ? 'This account is disabled' : 'This API key is disabled',
          headers,
        );
      case 'payment_required':
        if (access !== 'billing') throw new ApiError('payment_required', PAYMENT_MESSAGES[admission.reason], headers);
        reply.headers(headers);
        request.principal = admission.principal;
        request.credits = admission.position;
        break;
      case 'exhausted':
        throw new ApiError('credits_exhausted', exhaustedMessage(admission.position), {
          ...headers,
          'retry-after': retryAfter(admission.position, at),
        });
      case 'admitted':
        reply.headers(headers);
        request.principal = admission.principal;
        request.credits = admission.position;
        request.charge = admission.charge;
        if (admission.charge) writes.succeeded();
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const { charge } = request;
    if (charge === null) return payload;
    request.charge = null; // settled once, even if this hook runs again for the error answer below
    try {
      await metering.settleUsage({
        usageId: charge.usageId,
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 1000) / 1000,
      });
      writes.succeeded();
      return payload;
    } catch (error) {
      request.log.error({ err: error }, 'usage row could not be settled; withholding the answer');
      writes.failed(error);
    }
    // No answer leaves without its usage row saying so. The row still says 503 (PENDING_STATUS),
    // which is what the client now gets; taking back the row and the credit together makes the 503
    // free when the database allows it.
    let message = UNRECORDED_MESSAGE;
    try {
      await metering.voidCharge(charge);
    } catch (error) {
      request.log.error({ err: error }, 'charge could not be voided; its usage row records the 503');
      message = WITHHELD_MESSAGE;
    }
    for (const name of CREDIT_HEADER_NAMES) reply.removeHeader(name);
    reply.code(503).type('application/json; charset=utf-8');
    return JSON.stringify(errorBody('unavailable', message));
  });
}

const PAYMENT_MESSAGES = {
  no_plan: 'This account has no active plan',
  canceled: 'The subscription of this account is canceled',
  past_due: 'The subscription of this account is past due; settle the open invoice to resume',
} as const;

function exhaustedMessage(position: CreditPosition): string {
  return (
    `The allowance of ${position.included} requests for the current window is used up and overage is not enabled; ` +
    `it resets at ${iso(position.window.end)}`
  );
}

function queryOf(request: FastifyRequest): string {
  const index = request.url.indexOf('?');
  return index === -1 ? '' : request.url.slice(index + 1);
}

function hasBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
