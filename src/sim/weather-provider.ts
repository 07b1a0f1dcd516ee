// The simulated world's weather behind the weather provider interface: the reports its airports
// issued, rendered as METARs (weather.ts), for the ICAO codes of the reference airports.
import { onSignal } from '../providers/call.js';
import type { Answer, CallOptions } from '../providers/index.js';
import type { ReferenceAirport, ReferenceAirports } from '../airports/index.js';
import { MAX_WEATHER_WINDOW_MS, type WeatherProvider, type WeatherQuery } from '../weather/provider.js';
import type { WeatherReport } from '../weather/report.js';
import type { SimWorld } from './world.js';

export class SimWeatherProvider implements WeatherProvider {
  readonly name = 'sim';
  private readonly byIcao = new Map<string, ReferenceAirport>();

  constructor(
    private readonly world: SimWorld,
    airports: ReferenceAirports,
  ) {
    for (const airport of airports.all) if (airport.icao) this.byIcao.set(airport.icao, airport);
  }

  reports(query: WeatherQuery, options?: CallOptions): Promise<Answer<WeatherReport[]>> {
    if (query.to - query.from > MAX_WEATHER_WINDOW_MS)
      throw new RangeError('weather is read two days at a time at most');
    return onSignal<WeatherReport[]>(options?.signal, async () => {
      const airport = this.byIcao.get(query.station.toUpperCase());
      if (!airport) return { outcome: 'miss' };
      return {
        outcome: 'hit',
        value: this.world.weather.between(airport, query.from, query.to).map((seen) => seen.report),
      };
    });
  }
}
