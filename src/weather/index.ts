// Weather at the airports a flight used, as evidence for the verdict (docs/flight-lookup.md, "Circumstances"): reports read from
// METARs, the flags they show and how severe they are, and where reports come from (the weather
// provider interface; the IEM archive's adapter; the simulated world's lives in src/sim/).
export { readReport, ReportError, type WeatherReport } from './report.js';
export { crosswindKt, flagsOf, severityOf, THRESHOLDS, type Severity, type WeatherFlag } from './flags.js';
export { runwaysOf, type Runway } from './runways.js';
export { MAX_WEATHER_WINDOW_MS, NO_WEATHER, type WeatherProvider, type WeatherQuery } from './provider.js';
export { IemWeatherProvider, IEM_URL } from './iem.js';
