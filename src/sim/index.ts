// The simulated flight world: the embedded default provider (FLIGHTSTATUS_PROVIDERS=sim).
import type { Clock } from '../clock.js';
import type { SimConfig } from '../config.js';
import { loadCatalogue, loadReferenceAirports } from '../airports/index.js';
import { loadSimReference } from './reference.js';
import { SimProvider } from './provider.js';
import { SimWorld } from './world.js';

export { SimWorld, DEFAULT_CACHED_DAYS } from './world.js';
export { SimProvider, MAX_BOARD_WINDOW } from './provider.js';
export { simRoutes, parseTruthQuery } from './routes.js';
export { groundTruth, calibrate, statusOf, DELAYED_FROM_MINUTES, type TruthFlight, type Calibration } from './truth.js';

/** The world of a seed over the catalogue airports. */
export function createSimWorld(seed: string): SimWorld {
  return new SimWorld({
    seed,
    catalogue: loadCatalogue().airports.map((a) => a.iata),
    airports: loadReferenceAirports(),
    reference: loadSimReference(),
  });
}

export function createSimProvider(config: SimConfig, clock: Clock): SimProvider {
  return new SimProvider(createSimWorld(config.seed), clock, config);
}
