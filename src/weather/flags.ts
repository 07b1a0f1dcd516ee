// What in a weather report can stop or slow flights, as flags the verdict cites with the report that
// shows them. The thresholds, and where they come from (docs/weather.md has them as a table):
// - thunderstorm: TS at the station or in its vicinity (VCTS), or cumulonimbus (CB) in the cloud
//   groups (WMO code table 4678; ICAO Annex 3);
// - low_visibility: visibility under 800 m or a runway visual range under 550 m, where low-visibility
//   procedures begin and runway capacity falls (LVP are typically activated below RVR 550–600 m);
// - below_minima: RVR under 550 m or a ceiling under 200 ft, the CAT I minima, which every
//   instrument runway offers (CAT II/III runways land lower, at reduced capacity);
// - ceiling_unknown: the sky obscured with its vertical visibility not measured (VV///): the ceiling
//   may be under the CAT I minimum and the report cannot say. Within limits on its own, since the
//   evidence shows no more (docs/weather.md, "Flags and their thresholds"); the visibility and RVR beside it rate the fog;
// - freezing_precipitation: freezing rain or drizzle (FZRA, FZDZ), or unknown freezing
//   precipitation (FZUP);
// - snow and heavy_snow: snow (SN, SG, blowing BLSN), heavy when coded `+SN`;
// - strong_wind: a mean wind of 30 kt or more, or gusts of 40 kt or more;
// - crosswind: a component of 25 kt or more (gusts included) across the best-aligned runway, when the
//   airport's runway headings are known (A320 demonstrated 38 kt, typical operator limits on wet
//   runways 25–33 kt);
// - volcanic_ash: VA.
import { hasWeather, type WeatherReport } from './report.js';

export type WeatherFlag =
  | 'thunderstorm'
  | 'low_visibility'
  | 'below_minima'
  | 'ceiling_unknown'
  | 'freezing_precipitation'
  | 'snow'
  | 'heavy_snow'
  | 'strong_wind'
  | 'crosswind'
  | 'volcanic_ash';

export const THRESHOLDS = {
  lowVisibilityM: 800,
  lowRvrM: 550,
  minimaRvrM: 550,
  minimaCeilingFt: 200,
  strongWindKt: 30,
  strongGustKt: 40,
  crosswindKt: 25,
} as const;

/**
 * The crosswind component (knots, gusts included) on the runway best aligned with the wind: the one
 * a tower would use. `headings` are the runways' true headings in degrees (METAR winds are true too);
 * a variable wind (no direction) may blow across any runway, so it counts in full. Null without
 * headings or wind.
 */
export function crosswindKt(wind: WeatherReport['wind'], headings: number[]): number | null {
  if (!wind || headings.length === 0) return null;
  const speed = Math.max(wind.speedKt, wind.gustKt ?? 0);
  if (wind.direction === null) return speed;
  const across = headings.map((heading) => Math.abs(speed * Math.sin(((wind.direction! - heading) * Math.PI) / 180)));
  return Math.round(Math.min(...across));
}

/** The flags a report shows, in the order above. `runwayHeadings` (true degrees) enable the crosswind flag. */
export function flagsOf(report: WeatherReport, runwayHeadings: number[] = []): WeatherFlag[] {
  const flags: WeatherFlag[] = [];
  const t = THRESHOLDS;
  if (hasWeather(report, 'TS', { vicinity: true }) || report.cumulonimbus) flags.push('thunderstorm');
  const rvr = report.rvrM;
  if ((report.visibilityM !== null && report.visibilityM < t.lowVisibilityM) || (rvr !== null && rvr < t.lowRvrM))
    flags.push('low_visibility');
  if ((rvr !== null && rvr < t.minimaRvrM) || (report.ceilingFt !== null && report.ceilingFt < t.minimaCeilingFt))
    flags.push('below_minima');
  if (report.ceilingUnknown) flags.push('ceiling_unknown');
  if (report.weather.some((w) => /FZ(?:RA|DZ|UP)/.test(w))) flags.push('freezing_precipitation');
  if (hasWeather(report, 'SN') || hasWeather(report, 'SG')) flags.push('snow');
  if (hasWeather(report, 'SN', { heavy: true })) flags.push('heavy_snow');
  const wind = report.wind;
  if (wind && (wind.speedKt >= t.strongWindKt || (wind.gustKt ?? 0) >= t.strongGustKt)) flags.push('strong_wind');
  const across = crosswindKt(wind, runwayHeadings);
  if (across !== null && across >= t.crosswindKt) flags.push('crosswind');
  if (hasWeather(report, 'VA', { vicinity: true })) flags.push('volcanic_ash');
  return flags;
}

/**
 * How bad a report's weather was for flying: `beyond_limits` when operations stop or the runway's
 * capacity collapses (a thunderstorm at the station, conditions below the CAT I minima, freezing
 * precipitation, heavy snow, a crosswind past the limit, volcanic ash); `within_limits` when flags show
 * but aircraft still land and leave (fog above the minima, light or moderate snow, a thunderstorm
 * only in the vicinity, a strong wind along the runway), or the report cannot tell (a ceiling not
 * measured); `none` without flags. The verdict calls only the first likely extraordinary.
 */
export type Severity = 'none' | 'within_limits' | 'beyond_limits';

const BEYOND_LIMITS: ReadonlySet<WeatherFlag> = new Set([
  'below_minima',
  'freezing_precipitation',
  'heavy_snow',
  'crosswind',
  'volcanic_ash',
]);

export function severityOf(report: WeatherReport, flags: readonly WeatherFlag[]): Severity {
  if (flags.length === 0) return 'none';
  if (flags.some((flag) => BEYOND_LIMITS.has(flag)) || hasWeather(report, 'TS')) return 'beyond_limits';
  return 'within_limits';
}
