// GET /api/v1/flights/status (docs/flight-lookup.md): metered; the query is parsed by parseFlightQuery (after
// the credit is taken, so a 400 still costs one), then handed to the resolver.
import type { FastifyReply } from 'fastify';
import type { HttpServer } from '../http/server.js';
import { ApiError } from '../http/errors.js';
import { errors, withCreditHeaders } from '../http/schemas.js';
import { parseFlightQuery, querySchema, type FlightQuery } from './query.js';
import type { FlightResolver } from './resolver.js';
import { FlightStatusResponse, ProvidersFailedResponse } from './schema.js';

export function flightRoutes(app: HttpServer, deps: { resolver: FlightResolver }): void {
  app.get(
    '/api/v1/flights/status',
    {
      config: { access: 'metered' },
      // A HEAD would take a credit and run a resolve for nothing: monitoring probes use /api/health.
      exposeHeadRoute: false,
      schema: {
        summary: 'Resolve one flight on one date',
        description:
          'Metered: one credit per request, taken before the query is checked (a 400 costs a credit too). ' +
          'Every response except 401 carries the X-Credits-* headers.',
        tags: ['flights'],
        security: [{ bearer: [] }, { apiKey: [] }, { legacyApiKey: [] }],
        querystring: querySchema(),
        response: {
          200: withCreditHeaders(FlightStatusResponse),
          ...errors(400, 401, 402, 403, 429, 503),
          500: withCreditHeaders(ProvidersFailedResponse),
        },
      },
      // The query is checked by the parser that QUERY_PARAMETERS describes, not by Ajv, so that
      // aliases, trimming and the messages are exactly the spec's.
      validatorCompiler: () => (data: unknown) => {
        const parsed = parseFlightQuery((data ?? {}) as Record<string, string | string[] | undefined>);
        return parsed.ok ? { value: parsed.query } : { error: new ApiError('invalid_request', parsed.message) };
      },
    },
    async (request, reply) => {
      const query = request.query as unknown as FlightQuery;
      // The client hanging up before the answer cancels the resolve. The signal is made only when
      // the resolver asks for it (a replay never does; it cost a replay ~4 µs).
      let controller: AbortController | undefined;
      const context = {
        requestId: request.id,
        get signal(): AbortSignal {
          if (!controller) {
            const made = (controller = new AbortController());
            if (reply.raw.destroyed) made.abort();
            else reply.raw.once('close', () => !reply.raw.writableFinished && made.abort());
          }
          return controller.signal;
        },
      };
      // A settled record's replay is sent as it was stored (its JSON, not parsed and serialised again).
      const replayed = deps.resolver.replay ? await deps.resolver.replay(query, context) : null;
      // (The typed reply takes the response schema's object; this JSON is one already, so it goes out untyped.)
      if (replayed !== null)
        return (reply as FastifyReply)
          .type('application/json; charset=utf-8')
          .send(`{"success":true,"data":${replayed}}`);
      const resolution = await deps.resolver.resolve(query, context);
      if (resolution.kind === 'unavailable')
        throw new ApiError('internal', resolution.message, {}, { sources: resolution.sources });
      return { success: true as const, data: resolution.data };
    },
  );
}
