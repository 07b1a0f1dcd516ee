// The weather provider FLIGHTSTATUS_WEATHER names (docs/weather.md): `auto` is the simulated world's
// weather when the simulated world is a flight provider (`simulated`), else none; `sim` needs it.
import type { Clock } from '../clock.js';
import type { WeatherConfig } from '../config.js';
import { IemWeatherProvider } from './iem.js';
import { NO_WEATHER, type WeatherProvider } from './provider.js';

export function buildWeather(config: WeatherConfig, clock: Clock, simulated: WeatherProvider | null): WeatherProvider {
  switch (config.source) {
    case 'auto':
      return simulated ?? NO_WEATHER;
    case 'sim':
      if (!simulated)
        throw new Error(
          "FLIGHTSTATUS_WEATHER=sim is the simulated world's weather: list sim in FLIGHTSTATUS_PROVIDERS, or use iem for real flights",
        );
      return simulated;
    case 'iem':
      return new IemWeatherProvider(config.iem, clock);
    case 'off':
      return NO_WEATHER;
  }
}
