// A METAR as the verdict's evidence needs it: the raw text, quoted as it was issued, and the few
// measures the flags read, in one set of units (knots, metres, feet). Parsing is metar-taf-parser's
// (MIT, typed, no dependencies, maintained; the one library that also reads TAFs and remarks, which
// the weather's later steps use); this module converts its units and picks the fields, and merges in
// the groups it drops or misreads, which groups.ts reads from the report's text.
import {
  CloudQuantity,
  CloudType,
  DistanceUnit,
  Intensity,
  parseMetar,
  RunwayInfoUnit,
  SpeedUnit,
  type IMetar,
} from 'metar-taf-parser';
import {
  bodyGroups,
  M_PER_FT,
  M_PER_SM,
  runwayRangesM,
  skyOf,
  statuteMilesM,
  windGroup,
  type WindGroup,
} from './groups.js';

export interface WeatherReport {
  /** ICAO code of the reporting station. */
  station: string;
  /** When it was observed (epoch ms, UTC). */
  at: number;
  /** The report as issued, for quoting. */
  raw: string;
  wind: {
    /** Degrees true; null when variable (VRB). */
    direction: number | null;
    speedKt: number;
    gustKt: number | null;
  } | null;
  /** Prevailing visibility in metres (9999 and CAVOK: 10,000); null when not reported. */
  visibilityM: number | null;
  /**
   * The lowest runway visual range reported on any runway, in metres; null when none. A value reported
   * as below or above what the system measures (`M0050`, `P2000`) counts as that bound.
   */
  rvrM: number | null;
  /** The lowest broken or overcast layer, or the vertical visibility, in feet; null when none. */
  ceilingFt: number | null;
  /**
   * The sky reported obscured with its vertical visibility not measured (`VV///`, as automatic stations
   * report fog): the ceiling is unknown, and may be under any minimum. docs/decisions.md says how it rates.
   */
  ceilingUnknown: boolean;
  /** Cumulonimbus reported in the cloud groups, also of unknown amount and base (`//////CB`). */
  cumulonimbus: boolean;
  /** Present weather as coded, e.g. `+TSRA`, `FZDZ`, `VCTS`. */
  weather: string[];
}

/** A knot is 1,852 m an hour: 1 m/s is 3,600/1,852 kt (1.944), 1 km/h is 1,000/1,852 kt (0.540). */
const KT_PER_MPS = 3_600 / 1_852;
const KT_PER_KMH = 1_000 / 1_852;

export class ReportError extends Error {
  override readonly name = 'ReportError';
}

/**
 * Reads one METAR or SPECI. `observedAt` is when the archive says it was observed (the report's own
 * day-hour-minute group names no month or year). Throws ReportError for text that is not a report.
 */
export function readReport(raw: string, observedAt: number): WeatherReport {
  const text = raw.trim().replace(/=$/, '');
  let metar: IMetar;
  try {
    metar = parseMetar(text);
  } catch (error) {
    throw new ReportError(`not a METAR: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!/^[A-Z][A-Z0-9]{3}$/.test(metar.station ?? ''))
    throw new ReportError(`not a METAR: no station in "${text.slice(0, 40)}"`);
  const groups = bodyGroups(text);
  const sky = skyOf(groups);
  return {
    station: metar.station,
    at: observedAt,
    raw: text,
    wind: windOf(windGroup(groups) ?? metar.wind),
    visibilityM: visibilityOf(metar, groups),
    rvrM: lowest([...rvrOf(metar), ...runwayRangesM(groups)]),
    ceilingFt: lowest([...ceilingsOf(metar), ...(sky.ceilingFt === null ? [] : [sky.ceilingFt])]),
    ceilingUnknown: sky.obscuredWithoutHeight,
    cumulonimbus:
      sky.cumulonimbus || metar.clouds.some((c) => c.type === CloudType.CB || c.secondaryType === CloudType.CB),
    weather: metar.weatherConditions.map((w) => `${w.intensity ?? ''}${w.descriptive ?? ''}${w.phenomenons.join('')}`),
  };
}

function knots(value: number, unit: SpeedUnit): number {
  if (unit === SpeedUnit.MetersPerSecond) return Math.round(value * KT_PER_MPS);
  if (unit === SpeedUnit.KilometersPerHour) return Math.round(value * KT_PER_KMH);
  return value;
}

/** The wind as groups.ts reads it, else as the parser does (it also reads a group without its unit, as knots). */
function windOf(wind: WindGroup | undefined): WeatherReport['wind'] {
  if (!wind) return null;
  return {
    direction: wind.degrees ?? null,
    speedKt: knots(wind.speed, wind.unit),
    gustKt: wind.gust === undefined ? null : knots(wind.gust, wind.unit),
  };
}

/** In metres; statute miles as groups.ts reads them (the parser rounds or drops fractions), metres as the parser does. */
function visibilityOf(metar: IMetar, groups: readonly string[]): number | null {
  if (metar.cavok) return 10_000;
  const miles = statuteMilesM(groups);
  if (miles !== null) return miles;
  const v = metar.visibility;
  if (!v) return null;
  if (v.unit === DistanceUnit.StatuteMiles) return Number.isFinite(v.value) ? Math.round(v.value * M_PER_SM) : null;
  return v.value >= 9999 ? 10_000 : v.value;
}

/** The parser's runway visual ranges (their lowest values), in metres. */
function rvrOf(metar: IMetar): number[] {
  return metar.runwaysInfo.flatMap((r) =>
    'minRange' in r && typeof r.minRange === 'number'
      ? [r.unit === RunwayInfoUnit.Feet ? Math.round(r.minRange * M_PER_FT) : r.minRange]
      : [],
  );
}

function lowest(values: number[]): number | null {
  return values.length > 0 ? Math.min(...values) : null;
}

/** The parser's broken and overcast bases and vertical visibility, in feet (groups.ts adds those it drops). */
function ceilingsOf(metar: IMetar): number[] {
  const layers = metar.clouds
    .filter((c) => (c.quantity === CloudQuantity.BKN || c.quantity === CloudQuantity.OVC) && c.height !== undefined)
    .map((c) => c.height!);
  if (metar.verticalVisibility !== undefined) layers.push(metar.verticalVisibility);
  return layers;
}

/** True when a present-weather group has this descriptor or phenomenon (at the station or in its vicinity). */
export function hasWeather(
  report: WeatherReport,
  code: string,
  options: { heavy?: boolean; vicinity?: boolean } = {},
): boolean {
  return report.weather.some((w) => {
    const vicinity = w.startsWith(Intensity.IN_VICINITY);
    if (vicinity && !options.vicinity) return false;
    if (options.heavy && !w.startsWith(Intensity.HEAVY)) return false;
    return (
      w
        .replace(/^[+-]|^VC/, '')
        .match(/.{2}/g)
        ?.includes(code) ?? false
    );
  });
}
