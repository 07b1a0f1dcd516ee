// Weather reports as evidence for the verdict's circumstances (docs/weather.md): where they come from,
// and the IEM archive's address and request budget.
import { providerUrl } from './providers.js';
import { capability, integer, oneOf } from './setting.js';

export const WEATHER_SOURCES = ['auto', 'sim', 'iem', 'off'] as const;
export type WeatherSource = (typeof WEATHER_SOURCES)[number];

export interface WeatherConfig {
  /** `auto`: the simulated world's weather when it is a flight provider, else none. */
  source: WeatherSource;
  iem: { url: string; requestsPerMinute: number };
}

export const weather = capability({
  title: 'Weather (docs/weather.md)',
  settings: {
    FLIGHTSTATUS_WEATHER: oneOf(WEATHER_SOURCES, {
      default: 'auto',
      listing: 'one of',
      lowerCase: true,
      doc: "where weather reports come from: `sim` (the simulated world's), `iem` (the Iowa Environmental Mesonet METAR archive), `off`; `auto`: `sim` when the simulated world is a provider, else `off`",
      comment:
        "Where the verdict's weather reports come from: sim (the simulated world's own weather; only with the " +
        'sim provider), iem (the Iowa Environmental Mesonet METAR archive, public, no key), off (none: the ' +
        'verdict says the weather is unknown). auto: sim when FLIGHTSTATUS_PROVIDERS lists sim, else off.',
    }),
    FLIGHTSTATUS_IEM_URL: providerUrl(
      'https://mesonet.agron.iastate.edu',
      "the IEM archive's base URL (its `/cgi-bin/request/asos.py` answers)",
    ),
    FLIGHTSTATUS_IEM_REQUESTS_PER_MINUTE: integer({
      default: '20',
      min: 1,
      max: 10_000,
      unit: 'an integer',
      doc: 'the most requests a minute sent to the IEM archive',
    }),
  },
  build: (v): { weather: WeatherConfig } => ({
    weather: {
      source: v.FLIGHTSTATUS_WEATHER,
      iem: { url: v.FLIGHTSTATUS_IEM_URL, requestsPerMinute: v.FLIGHTSTATUS_IEM_REQUESTS_PER_MINUTE },
    },
  }),
});
