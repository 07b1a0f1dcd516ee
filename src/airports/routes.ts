// GET /api/v1/airports: the catalogue, sorted by code, in {success, data: {count, airports}}.
import { Type } from 'typebox';
import type { HttpServer } from '../http/server.js';
import { Envelope, errors, withCreditHeaders } from '../http/schemas.js';
import type { AirportCatalogue } from './catalogue.js';

const AirportEntry = Type.Object(
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

export const AirportsResponse = Envelope(
  Type.Object(
    {
      count: Type.Integer({ description: 'Number of airports in the catalogue' }),
      airports: Type.Array(AirportEntry),
    },
    { additionalProperties: false },
  ),
  'The airport catalogue',
);

export function airportRoutes(app: HttpServer, deps: { catalogue: AirportCatalogue }): void {
  const body = {
    success: true as const,
    data: { count: deps.catalogue.airports.length, airports: deps.catalogue.airports.map((a) => ({ ...a })) },
  };
  app.get(
    '/api/v1/airports',
    {
      config: { access: 'key' },
      schema: {
        summary: 'List the airports that webhook endpoints may select',
        description:
          'The 52 catalogue airports whose departure and arrival boards are watched, sorted by IATA code. Unmetered.',
        tags: ['airports'],
        security: [{ bearer: [] }, { apiKey: [] }, { legacyApiKey: [] }],
        response: { 200: withCreditHeaders(AirportsResponse), ...errors(401, 402, 403) },
      },
    },
    async () => body,
  );
}
