// The airports capability: the reference airports, the catalogue every process holds (the specification's 52 and the
// operator's additions, read again every CATALOGUE_REFRESH_MS), GET /api/v1/airports, and the
// additions service the operator's API and CLI use (docs/airports.md, "Adding airports").
import type { Capability } from '../capability.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/index.js';
import type { HttpServer } from '../http/server.js';
import type { Logger } from '../logger.js';
import { AirportAdditions, CATALOGUE_REFRESH_MS } from './additions.js';
import { loadCatalogue } from './catalogue.js';
import { loadReferenceAirports } from './reference.js';
import { airportRoutes } from './routes.js';

export async function airportsCapability(o: {
  db: Database;
  clock: Clock;
  logger: Logger;
  /** How many webhook endpoints select an airport (asked when the operator removes one). */
  selectedBy: (iata: string) => Promise<number>;
}) {
  const catalogue = loadCatalogue();
  const reference = loadReferenceAirports();
  const additions = new AirportAdditions({ ...o, catalogue, reference });
  await additions.refresh();
  // Another process may add an airport: read the additions again now and then (and at once where a code is unknown).
  const timer = setInterval(
    () => additions.refresh().catch((err: unknown) => o.logger.warn({ err }, 'reading the catalogue additions failed')),
    CATALOGUE_REFRESH_MS,
  );
  timer.unref();
  const capability: Capability<HttpServer> = {
    routes: (scope) => airportRoutes(scope, { catalogue }),
    close: () => clearInterval(timer),
  };
  return { ...capability, catalogue, additions, reference };
}
