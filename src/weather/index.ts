// Weather at the airports a flight used, as evidence for the verdict (issue 28): reports read from
// METARs and the flags they show. The weather providers (simulated, IEM) come next behind the same
// kind of interface as the flight providers.
export { readReport, ReportError, type WeatherReport } from './report.js';
export { crosswindKt, flagsOf, severityOf, THRESHOLDS, type Severity, type WeatherFlag } from './flags.js';
export { runwaysOf, type Runway } from './runways.js';
