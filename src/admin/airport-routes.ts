// The catalogue's additions in the operator API (docs/airports.md, "Adding airports"): list the
// catalogue with where each airport comes from, add a reference airport, remove one the operator added.
import { Type } from 'typebox';
import { AirportEntry, type AirportAdditions } from '../airports/index.js';
import { Envelope, errors } from '../http/schemas.js';
import { envelope, unwrap } from '../http/results.js';
import type { HttpServer } from '../http/server.js';
import { adminScope, common } from './routes.js';

const AddAirport = Type.Object(
  {
    iata: Type.String({ minLength: 1, maxLength: 12, description: "A reference airport's IATA code, e.g. FRA" }),
    name: Type.Optional(Type.String({ maxLength: 200, description: "The airport's name, if not the reference's" })),
    city: Type.Optional(
      Type.String({ maxLength: 200, description: 'The city it serves, if not the reference municipality' }),
    ),
  },
  { additionalProperties: false },
);

const CatalogueEntry = Type.Object({
  ...AirportEntry.properties,
  icao: Type.String(),
  latitude: Type.Number(),
  longitude: Type.Number(),
  source: Type.Union([Type.Literal('specification'), Type.Literal('operator')]),
  addedAt: Type.Union([Type.String(), Type.Null()]),
});

const AirportParams = Type.Object({ iata: Type.String({ maxLength: 12 }) });

export function airportAdminRoutes(app: HttpServer, deps: { adminToken: string; additions: AirportAdditions }): void {
  const { additions } = deps;
  adminScope(app, deps.adminToken, (admin) => {
    admin.get(
      '/api/admin/v1/airports',
      {
        schema: {
          ...common,
          response: {
            200: Envelope(
              Type.Object({ count: Type.Integer(), airports: Type.Array(CatalogueEntry) }),
              'The catalogue',
            ),
            ...errors(401),
          },
        },
      },
      async () => {
        const airports = await additions.list();
        return envelope({ count: airports.length, airports });
      },
    );
    admin.post(
      '/api/admin/v1/airports',
      {
        schema: {
          ...common,
          body: AddAirport,
          response: { 201: Envelope(CatalogueEntry, 'Added'), ...errors(400, 401, 409) },
        },
      },
      async (request, reply) => reply.code(201).send(envelope(unwrap(await additions.add(request.body)))),
    );
    admin.delete(
      '/api/admin/v1/airports/:iata',
      {
        schema: {
          ...common,
          params: AirportParams,
          response: { 200: Envelope(Type.Object({ removed: Type.String() }), 'Removed'), ...errors(401, 404, 409) },
        },
      },
      async (request) => envelope(unwrap(await additions.remove(request.params.iata))),
    );
  });
}
