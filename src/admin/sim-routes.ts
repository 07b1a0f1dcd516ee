// Ground truth of the simulated world for operators, demos and tests (operator API, hidden from the
// public OpenAPI document; registered only when the simulated world is a configured provider).
import { Type } from 'typebox';
import { adminScope, common, envelope } from './routes.js';
import type { AirportCatalogue } from '../airports/index.js';
import { parseFlightDate } from '../flights/index.js';
import { ApiError } from '../http/errors.js';
import { Envelope, errors } from '../http/schemas.js';
import type { HttpServer } from '../http/server.js';
import { CAUSE_KINDS, groundTruth, OPERATIONS, TRUTH_STATUSES, type SimWorld, type TruthFilter } from '../sim/index.js';

export const MAX_TRUTH_LIMIT = 5000;

const Query = Type.Object(
  {
    date: Type.String({ description: 'Flight date (scheduled departure, UTC), YYYY-MM-DD' }),
    airport: Type.Optional(
      Type.String({ description: 'A catalogue airport (IATA code or alias): its departures and arrivals' }),
    ),
    status: Type.Optional(Type.String({ description: TRUTH_STATUSES.join(' | ') })),
    operation: Type.Optional(Type.String({ description: OPERATIONS.join(' | ') })),
    limit: Type.Optional(Type.String({ description: `Rows per page, 1–${MAX_TRUTH_LIMIT} (default 1000)` })),
    offset: Type.Optional(Type.String({ description: 'Rows to skip (default 0)' })),
  },
  { additionalProperties: false },
);

const TruthView = Type.Object({
  flightNumber: Type.String(),
  flightDate: Type.String(),
  airline: Type.Object({ name: Type.String(), iata: Type.Union([Type.String(), Type.Null()]), icao: Type.String() }),
  callsign: Type.String(),
  codeshares: Type.Array(Type.String()),
  operation: Type.String(),
  origin: Type.String(),
  destination: Type.String(),
  divertedTo: Type.Union([Type.String(), Type.Null()]),
  scheduledDeparture: Type.String(),
  scheduledArrival: Type.String(),
  actualDeparture: Type.Union([Type.String(), Type.Null()]),
  actualArrival: Type.Union([Type.String(), Type.Null()]),
  departureDelayMinutes: Type.Union([Type.Number(), Type.Null()]),
  arrivalDelayMinutes: Type.Union([Type.Number(), Type.Null()]),
  status: Type.String(),
  cancelledAt: Type.Union([Type.String(), Type.Null()]),
  registration: Type.String(),
  aircraftType: Type.String(),
  delayCause: Type.Object({
    kind: Type.String({ description: CAUSE_KINDS.join(' | ') }),
    originLeg: Type.Union([
      Type.Object({
        flightNumber: Type.String(),
        flightDate: Type.String(),
        origin: Type.String(),
        destination: Type.String(),
      }),
      Type.Null(),
    ]),
  }),
});

export type TruthQuery = { date: string; filter: TruthFilter; limit: number; offset: number };

/**
 * Validates the query into a truth filter, or names the first bad field (`query.date …`); the route
 * answers that as a 400, the CLI as a usage error.
 */
export function parseTruthQuery(
  query: Record<string, string | undefined>,
  catalogue: AirportCatalogue,
): { ok: true; query: TruthQuery } | { ok: false; message: string } {
  const bad = (message: string) => ({ ok: false as const, message });
  const date = parseFlightDate(query.date ?? '');
  if (!date.ok) return bad('query.date must be a date as YYYY-MM-DD');
  const filter: TruthFilter = {};
  if (query.airport !== undefined) {
    const airport = catalogue.find(query.airport);
    if (!airport) return bad(`query.airport must be a catalogue airport (got "${query.airport.slice(0, 12)}")`);
    filter.airport = airport.iata;
  }
  if (query.status !== undefined) {
    if (!(TRUTH_STATUSES as readonly string[]).includes(query.status))
      return bad(`query.status must be one of ${TRUTH_STATUSES.join(', ')}`);
    filter.status = query.status as TruthFilter['status'];
  }
  if (query.operation !== undefined) {
    if (!(OPERATIONS as readonly string[]).includes(query.operation))
      return bad(`query.operation must be one of ${OPERATIONS.join(', ')}`);
    filter.operation = query.operation as TruthFilter['operation'];
  }
  const integer = (name: 'limit' | 'offset', fallback: number, min: number, max: number): number | null => {
    const text = query[name];
    if (text === undefined) return fallback;
    const value = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
    return value >= min && value <= max ? value : null;
  };
  const limit = integer('limit', 1000, 1, MAX_TRUTH_LIMIT);
  if (limit === null) return bad(`query.limit must be an integer from 1 to ${MAX_TRUTH_LIMIT}`);
  const offset = integer('offset', 0, 0, 1e9);
  if (offset === null) return bad(`query.offset must be an integer from 0 to ${1e9}`);
  return { ok: true, query: { date: date.value, filter, limit, offset } };
}

export function simRoutes(
  app: HttpServer,
  deps: { adminToken: string; world: SimWorld; catalogue: AirportCatalogue },
): void {
  adminScope(app, deps.adminToken, (admin) => {
    admin.get(
      '/api/admin/v1/sim/flights',
      {
        schema: {
          ...common,
          querystring: Query,
          response: {
            200: Envelope(
              Type.Object({
                date: Type.String(),
                total: Type.Integer(),
                offset: Type.Integer(),
                count: Type.Integer(),
                flights: Type.Array(TruthView),
              }),
              'The simulated flights of a day with their true, settled outcome',
            ),
            ...errors(400, 401),
          },
        },
      },
      async (request) => {
        const parsed = parseTruthQuery(request.query, deps.catalogue);
        if (!parsed.ok) throw new ApiError('invalid_request', parsed.message);
        const { date, filter, limit, offset } = parsed.query;
        const all = groundTruth(deps.world, date, filter);
        const flights = all.slice(offset, offset + limit);
        return envelope({ date, total: all.length, offset, count: flights.length, flights });
      },
    );
  });
}
