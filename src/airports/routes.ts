// GET /api/v1/airports: the catalogue (the specification's 52 and the operator's additions), sorted by
// code, in {success, data: {count, airports}}.
import { Type } from 'typebox';
import type { HttpServer } from '../http/server.js';
import { Envelope, errors, withCreditHeaders } from '../http/schemas.js';
import type { Airport, AirportCatalogue } from './catalogue.js';

export const AirportEntry = Type.Object(
  {
    iata: Type.String({ pattern: '^[A-Z]{3}$', description: 'Primary IATA code' }),
    name: Type.String({ description: 'Official airport name' }),
    city: Type.String({ description: 'City the airport serves' }),
    country: Type.String({ description: 'Country name in English' }),
    countryCode: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 country code' }),
    timezone: Type.String({ description: 'IANA time zone of the airport' }),
    boards: Type.Array(Type.Union([Type.Literal('departures'), Type.Literal('arrivals')]), {
      description: 'Boards that are polled',
    }),
    aliases: Type.Array(Type.String({ pattern: '^[A-Z]{3}$' }), {
      description: 'Alternative IATA codes that name the same airport',
    }),
  },
  { additionalProperties: false, title: 'Airport' },
);

const AirportsResponse = Envelope(
  Type.Object(
    {
      count: Type.Integer({ description: 'Number of airports in the catalogue (52, and any the operator added)' }),
      airports: Type.Array(AirportEntry),
    },
    { additionalProperties: false },
  ),
  'The airport catalogue',
);

export function airportRoutes(app: HttpServer, deps: { catalogue: AirportCatalogue }): void {
  // Built again only when the catalogue changes (the operator added or removed an airport).
  let listed: readonly Airport[] | null = null;
  let body: { success: true; data: { count: number; airports: Airport[] } } | null = null;
  app.get(
    '/api/v1/airports',
    {
      config: { access: 'key' },
      schema: {
        summary: 'List the airports that webhook endpoints may select',
        description:
          "The catalogue airports whose departure and arrival boards are watched, sorted by IATA code: the specification's 52 and any the operator added. Unmetered.",
        tags: ['airports'],
        security: [{ bearer: [] }, { apiKey: [] }, { legacyApiKey: [] }],
        response: { 200: withCreditHeaders(AirportsResponse), ...errors(401, 402, 403) },
      },
    },
    async () => {
      const airports = deps.catalogue.airports;
      if (airports !== listed || !body) {
        body = { success: true, data: { count: airports.length, airports: airports.map((a) => ({ ...a })) } };
        listed = airports;
      }
      return body;
    },
  );
}
