// Where the weather reports come from: one interface in the flight providers' style (their outcome
// vocabulary, the caller's deadline and signal, counted calls), with the simulated world's weather as
// the embedded default (src/sim/weather-provider.ts), the Iowa Environmental Mesonet's METAR archive
// for real flights (iem.ts), and `off`, which knows nothing (the verdict then says the weather is
// unknown, never that it was fine).
import type { Answer, CallOptions, ProviderStatus } from '../providers/index.js';
import type { WeatherReport } from './report.js';

/** The widest window one call may ask for. */
export const MAX_WEATHER_WINDOW_MS = 2 * 24 * 60 * 60_000;

export interface WeatherQuery {
  /** ICAO code of the station (the airport). */
  station: string;
  /** Reports observed in [from, to). */
  from: number;
  to: number;
}

export interface WeatherProvider {
  /** `sim`, `iem`, `off`. */
  readonly name: string;
  /**
   * The METAR and SPECI reports of the station observed in the window (at most two days), oldest
   * first. `hit` with the reports (possibly none); `miss` when the provider does not cover the
   * station; `error` when it could not be asked (safe to retry).
   */
  reports(query: WeatherQuery, options?: CallOptions): Promise<Answer<WeatherReport[]>>;
  status?(): ProviderStatus;
}

/** FLIGHTSTATUS_WEATHER=off: no reports, anywhere. */
export const NO_WEATHER: WeatherProvider = {
  name: 'off',
  reports: async () => ({ outcome: 'miss' }),
};
