// The simulated flight world: the embedded default provider (FLIGHTSTATUS_PROVIDERS=sim).
import type { Clock } from '../clock.js';
import type { SimSettings } from './provider.js';
import { loadCatalogue, loadReferenceAirports } from '../airports/index.js';
import { loadSimReference } from './reference.js';
import { SimProvider } from './provider.js';
import { SimWorld } from './world.js';
import { AVOIDED_COUNTRIES } from './network.js';

export { SimWorld, DEFAULT_CACHED_DAYS } from './world.js';
export { SimProvider, MAX_BOARD_WINDOW, type SimFaults, type SimSettings } from './provider.js';
export { CAUSE_KINDS, type CauseKind } from './hazards.js';
export { SimWeather, type SimObservation } from './weather.js';
export { SimWeatherProvider } from './weather-provider.js';
export {
  groundTruth,
  causeOf,
  calibrate,
  statusOf,
  DELAYED_FROM_MINUTES,
  OPERATIONS,
  TRUTH_STATUSES,
  type TruthFilter,
  type TruthFlight,
  type DelayCause,
  type LegRef,
  type Calibration,
} from './truth.js';

/** The world of a seed over the catalogue airports. */
export function createSimWorld(seed: string): SimWorld {
  return new SimWorld({
    seed,
    catalogue: loadCatalogue().airports.map((a) => a.iata),
    airports: loadReferenceAirports(),
    reference: loadSimReference(),
  });
}

/** Carriers with number ranges wide enough to serve a thousand more airports. */
const SCALE_CARRIERS = ['FR', 'W6', 'U2', 'VY', 'EW', 'DY', 'UX', 'BY', 'X3', 'AF'];

/**
 * For benchmarks only: the world with `extra` more simulated airports (beyond the catalogue: Europe's
 * large then medium airports, then the rest of the world's), each with 20 departures a day flown by
 * ten carriers from their hubs. Shows how the board poll scales with the airports watched.
 */
export function createScaledSimWorld(seed: string, extra: number): SimWorld {
  const catalogue = loadCatalogue().airports.map((a) => a.iata);
  const airports = loadReferenceAirports();
  const reference = loadSimReference();
  const known = new Set(catalogue);
  // Europe first (large, then medium), then the rest of the world: a load test, not a real network.
  const rank = (a: { continent: string; size: string }) =>
    (a.continent === 'EU' ? 0 : 2) + (a.size === 'large' ? 0 : 1);
  const picked = airports.all
    .filter((a) => !known.has(a.iata) && !AVOIDED_COUNTRIES.has(a.countryCode))
    .sort((a, b) => rank(a) - rank(b) || a.iata.localeCompare(b.iata))
    .slice(0, extra);
  if (picked.length < extra) throw new RangeError(`only ${picked.length} more airports to simulate`);
  const traffic = new Map(reference.traffic);
  for (const airport of picked) {
    traffic.set(airport.iata, {
      departuresPerDay: 20,
      airlines: SCALE_CARRIERS.map((iata) => ({ iata, share: 1 / SCALE_CARRIERS.length, based: false })),
      closed: null,
    });
  }
  return new SimWorld({
    seed,
    catalogue: [...catalogue, ...picked.map((a) => a.iata)],
    airports,
    reference: { ...reference, traffic },
  });
}

export function createSimProvider(config: SimSettings, clock: Clock): SimProvider {
  return new SimProvider(createSimWorld(config.seed), clock, config);
}
