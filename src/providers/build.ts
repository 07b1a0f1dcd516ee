// The providers of FLIGHTSTATUS_PROVIDERS, in order, built from the configuration: what the service
// asks (app.ts) and what `flightstatus providers check` calls (cli/providers.ts). The simulated world
// implements this capability's interface, so it sits above it: the composition root hands it in.
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { loadReferenceAirports } from '../airports/index.js';
import { AeroDataBoxProvider } from './aerodatabox.js';
import { AeroApiProvider } from './aeroapi.js';
import { AviationstackProvider } from './aviationstack.js';
import { OpenSkyProvider } from './opensky.js';
import type { FlightProvider } from './types.js';

export function buildProviders(
  config: Pick<Config, 'providers' | 'upstream' | 'sim'>,
  clock: Clock,
  simulated: () => FlightProvider,
): FlightProvider[] {
  return config.providers.map((name): FlightProvider => {
    switch (name) {
      case 'sim':
        return simulated();
      case 'aerodatabox':
        return new AeroDataBoxProvider(config.upstream.aerodatabox, clock, loadReferenceAirports());
      case 'aeroapi':
        return new AeroApiProvider(config.upstream.aeroapi, clock, loadReferenceAirports());
      case 'aviationstack':
        return new AviationstackProvider(config.upstream.aviationstack, clock, loadReferenceAirports());
      case 'opensky':
        return new OpenSkyProvider(config.upstream.opensky, clock);
    }
  });
}
