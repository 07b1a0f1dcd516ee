// The flight lookup as the app builds it: settled records kept for replay, the circumstances of a
// disruption (weather, the aircraft's earlier legs, the boards' hours), the proof image, the local
// date basis in front, and the status route.
import type { ReferenceAirports } from '../airports/index.js';
import type { Capability } from '../capability.js';
import { CircumstancesService, type BoardHistory, type PastBoards } from '../circumstances/index.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/index.js';
import type { HttpServer } from '../http/server.js';
import type { Logger } from '../logger.js';
import type { FlightProvider } from '../providers/index.js';
import type { WeatherProvider } from '../weather/index.js';
import { createRecordStore } from './dialect.js';
import { LocalDateResolver } from './local.js';
import { FlightLookupService } from './lookup.js';
import { ProofRenderer } from './proof.js';
import type { FlightResolver } from './resolver.js';
import { flightRoutes } from './routes.js';

export interface FlightsSetup {
  db: Database;
  clock: Clock;
  logger: Logger;
  /** Bounded by their deadline and counted, in the configured order. */
  providers: FlightProvider[];
  airports: ReferenceAirports;
  weather: WeatherProvider;
  /** The boards' history, and airport-days read after the fact (boards/). */
  boards: BoardHistory;
  past: PastBoards;
  config: { providerTimeoutMs: number; retentionMs: number };
  /** Replaces the lookup (tests of metering that must not depend on providers). */
  resolver?: FlightResolver;
}

export function flightsCapability(setup: FlightsSetup) {
  const { db, clock, logger, providers, airports, config } = setup;
  const proof = new ProofRenderer(airports);
  const circumstances = new CircumstancesService({
    providers,
    weather: setup.weather,
    boards: setup.boards,
    airports,
    timeoutMs: config.providerTimeoutMs,
    clock,
    boardsKeptMs: config.retentionMs,
    past: setup.past,
  });
  const lookup =
    setup.resolver ??
    new FlightLookupService({
      providers,
      clock,
      records: createRecordStore(db),
      logger,
      providerTimeoutMs: config.providerTimeoutMs,
      proof,
      airports,
      circumstances,
    });
  // dateBasis=local (local.ts); its screenshot asks the lookup for the proof image of the local day's answer.
  const resolver = new LocalDateResolver(lookup, airports, (d) =>
    lookup instanceof FlightLookupService ? lookup.withProof({ screenshot: true }, d) : Promise.resolve(d),
  );
  return {
    proof,
    resolver,
    routes: (scope) => flightRoutes(scope, { resolver }),
  } satisfies Capability<HttpServer> & Record<string, unknown>;
}
