// GET /api/admin/v1/providers: the configured providers in cascade order, each with its address (never
// its key), request budget, circuit and 429 state, and every call counted by kind and outcome with
// its latency (src/providers/stats.ts), and the weather provider likewise. The counters are this
// process's, since it started. POST …/providers/check calls each of them once, as
// `flightstatus providers check` asks it to.
import { Type } from 'typebox';
import { iso } from '../clock.js';
import { checkProviders, type FlightProvider, type ProviderStatus } from '../providers/index.js';
import type { WeatherProvider } from '../weather/index.js';
import { Envelope, errors } from '../http/schemas.js';
import type { HttpServer } from '../http/server.js';
import { adminScope, common, envelope } from './routes.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const KindView = Type.Object({
  calls: Type.Integer(),
  outcomes: Type.Record(Type.String(), Type.Integer(), {
    description: 'hit, incomplete, miss, or error:KIND (timeout, unavailable, rate_limited, bad_response, aborted)',
  }),
  latencyMs: Nullable(Type.Object({ p50: Type.Number(), p99: Type.Number(), max: Type.Number() })),
});

const ProviderView = Type.Object({
  name: Type.String(),
  position: Type.Integer({ description: 'Place in FLIGHTSTATUS_PROVIDERS, from 1' }),
  url: Nullable(Type.String()),
  requestsPerMinute: Nullable(Type.Integer()),
  circuit: Type.Union([Type.Literal('closed'), Type.Literal('open'), Type.Literal('half-open')]),
  retryAfterMs: Type.Integer(),
  requests: Nullable(Type.Integer({ description: 'HTTP requests sent, retries included' })),
  refused: Nullable(
    Type.Integer({ description: 'Calls answered unsent: the per-minute limit, a 429 or an open circuit' }),
  ),
  calls: Type.Object({
    flight: Type.Optional(KindView),
    board: Type.Optional(KindView),
    aircraft: Type.Optional(KindView),
    rotation: Type.Optional(KindView),
    weather: Type.Optional(KindView),
  }),
  lastError: Nullable(Type.Object({ at: Type.String(), kind: Type.String(), message: Type.String() })),
});

/** What the operator sees of one provider, flight or weather. */
function view(provider: { name: string; status?: () => ProviderStatus }, position: number) {
  const status = provider.status?.() ?? null;
  const stats = status?.stats ?? null;
  return {
    name: provider.name,
    position,
    url: status?.url ?? null,
    requestsPerMinute: status?.requestsPerMinute ?? null,
    circuit: status?.circuit ?? ('closed' as const),
    retryAfterMs: status?.retryAfterMs ?? 0,
    requests: stats?.requests ?? null,
    refused: stats?.refused ?? null,
    calls: stats?.kinds ?? {},
    lastError: stats?.lastError ? { ...stats.lastError, at: iso(stats.lastError.at) } : null,
  };
}

const CheckView = Type.Object({
  provider: Type.String(),
  ok: Type.Boolean({ description: 'The provider answered and took the key' }),
  message: Type.String({ description: 'What it answered, in words (never the key)' }),
  durationMs: Type.Number(),
});

export function providerRoutes(
  app: HttpServer,
  deps: { adminToken: string; providers: FlightProvider[]; weather: WeatherProvider; providerTimeoutMs: number },
): void {
  adminScope(app, deps.adminToken, (admin) => {
    admin.get(
      '/api/admin/v1/providers',
      {
        schema: {
          ...common,
          response: {
            200: Envelope(
              Type.Object({
                providers: Type.Array(ProviderView),
                weather: Type.Object(ProviderView.properties, {
                  description: 'The weather provider (FLIGHTSTATUS_WEATHER; position 0): `sim`, `iem` or `off`',
                }),
              }),
              'The providers',
            ),
            ...errors(401),
          },
        },
      },
      async () =>
        envelope({
          providers: deps.providers.map((provider, i) => view(provider, i + 1)),
          weather: view(deps.weather, 0),
        }),
    );

    admin.post(
      '/api/admin/v1/providers/check',
      {
        schema: {
          ...common,
          description:
            'Calls each provider of this service once, in cascade order, with its key (the cheapest call it has; it counts against the provider plan).',
          response: {
            200: Envelope(
              Type.Object({ ok: Type.Boolean(), providers: Type.Array(CheckView) }),
              'Each provider, and whether it answered',
            ),
            ...errors(401),
          },
        },
      },
      async () => {
        const providers = await checkProviders(deps.providers, deps.providerTimeoutMs);
        return envelope({ ok: providers.every((p) => p.ok), providers });
      },
    );
  });
}
