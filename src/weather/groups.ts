// Groups of a METAR that metar-taf-parser (9.1.3, its newest release) drops or misreads, read here from
// the report's own text to the WMO code (Manual on Codes, WMO-No. 306, FM 15 METAR; feet and statute
// miles as the US and Canada write them, FMH-1). report.ts merges them into the parser's reading; each
// reader says which forms the parser gets wrong, so that a later release that reads them can be
// checked against the tests and the reader dropped.
//
// Only the report's body is read: the observation itself. Its trend (BECMG, TEMPO, NOSIG) is a forecast
// and its remarks (RMK) are free text, so a cumulonimbus in a TEMPO group is no observation of one.
import { SpeedUnit, type IWind } from 'metar-taf-parser';

/** Metres per foot and per statute mile (international definitions). */
export const M_PER_FT = 0.3048;
export const M_PER_SM = 1_609.344;

const TREND_OR_REMARKS = new Set(['BECMG', 'TEMPO', 'NOSIG', 'RMK']);

/** The groups of the report's body, in order: those before its first trend or remarks group. */
export function bodyGroups(text: string): string[] {
  const groups: string[] = [];
  for (const group of text.trim().replace(/=$/, '').split(/\s+/)) {
    if (TREND_OR_REMARKS.has(group)) break;
    if (group !== '') groups.push(group);
  }
  return groups;
}

// Runway visual range (FM 15 15.7): `R` runway `/` value, or a value varying `V` to another, each of
// four figures in metres (or feet with `FT`), `M` before one that is below the lowest the system
// measures, `P` before one above the highest, and a tendency letter U, D or N only "when a distinct
// tendency" was observed. The parser reads only groups with a tendency letter or in feet, and no M or
// P on the lower value of a varying group: `R35L/0350`, `R36/0400V0600`, `R17/P2000`, `R35L/M0050` and
// `R06/M0050V0200U` came back empty. This reads every form.
const RVR = /^R\d{2}[LCR]?\/([MP])?(\d{4})(?:V[MP]?\d{4})?(FT)?(?:\/?[UDN])?$/;

/**
 * The lowest value of each runway visual range group, in metres. A value marked M or P counts as its
 * bound (`M0050`, under 50 m, as 50; `P2000`, over 2,000 m, as 2,000): below a limit stays below it.
 */
export function runwayRangesM(groups: readonly string[]): number[] {
  return groups.flatMap((group) => {
    const m = RVR.exec(group);
    if (!m) return [];
    const value = Number(m[2]);
    return [m[3] ? Math.round(value * M_PER_FT) : value];
  });
}

// Prevailing visibility in statute miles, as the US and Canada report it (FMH-1): whole miles (`10SM`),
// a fraction (`3/4SM`, `1/16SM`) or both in two groups (`1 1/2SM`), M before a value under the lowest
// reportable, P before one over the highest. The parser rounds a fraction to hundredths of a mile
// before anyone converts it (`1/8SM` came back as 0.13 mi, 209 m for 201 m) and reads one-figure
// denominators only (`1/16SM`, `3/16SM` came back as no visibility at all).
const WHOLE_MILES = /^[MP]?(\d{1,3})SM$/;
const FRACTION_OF_A_MILE = /^[MP]?(\d{1,2})\/(\d{1,2})SM$/;
const WHOLE_BEFORE_FRACTION = /^[MP]?(\d)$/;

/**
 * The prevailing visibility when the body gives it in statute miles, in metres (a value marked M or P
 * as its bound); null when it does not, or gives it as no number (`1/0SM`).
 */
export function statuteMilesM(groups: readonly string[]): number | null {
  for (const [i, group] of groups.entries()) {
    const whole = WHOLE_MILES.exec(group);
    if (whole) return Math.round(Number(whole[1]) * M_PER_SM);
    const fraction = FRACTION_OF_A_MILE.exec(group);
    if (!fraction) continue;
    if (Number(fraction[2]) === 0) return null;
    const before = WHOLE_BEFORE_FRACTION.exec(groups[i - 1] ?? '');
    const miles = Number(before?.[1] ?? 0) + Number(fraction[1]) / Number(fraction[2]);
    return Math.round(miles * M_PER_SM);
  }
  return null;
}

// Surface wind (FM 15 15.5): the direction in degrees true, rounded to ten (so its last figure is 0), or
// VRB; the mean speed in two figures (three from 100 up); `G` and the gust; and the unit: KT, MPS or
// KMH, the code's own spelling of km/h. The parser knows km/h only as `KM/H`, and reads a speed of two
// figures only: `27040KMH` came back as 40 knots, `360105G130KT` as 360° at 10 knots. This reads the
// group in the parser's own terms, for report.ts to convert as it converts the parser's.
const WIND = /^([0-3]\d0|VRB)(\d{2,3})(?:G(\d{2,3}))?(KT|MPS|KMH)$/;
const UNITS = { KT: SpeedUnit.Knot, MPS: SpeedUnit.MetersPerSecond, KMH: SpeedUnit.KilometersPerHour } as const;

export type WindGroup = Pick<IWind, 'degrees' | 'speed' | 'gust' | 'unit'>;

/** The wind group; null when the body has none in these forms (`/////KT`, `P49MPS`, no unit). */
export function windGroup(groups: readonly string[]): WindGroup | null {
  for (const group of groups) {
    const m = WIND.exec(group);
    if (!m) continue;
    return {
      degrees: m[1] === 'VRB' ? undefined : Number(m[1]),
      speed: Number(m[2]),
      gust: m[3] === undefined ? undefined : Number(m[3]),
      unit: UNITS[m[4] as keyof typeof UNITS],
    };
  }
  return null;
}

// Cloud (FM 15 15.9): the amount FEW, SCT, BKN or OVC and the base in hundreds of feet, then CB or TCU;
// or, when the sky is obscured (fog, snow), VV and the vertical visibility in hundreds of feet. An
// automatic station writes `/` for what it could not tell: `//////CB` (a cumulonimbus whose amount and
// base it could not tell; some write `///CB`), `BKN///` (a base not measured), `VV///` (a vertical
// visibility not measured), `VV001///` (a cloud type not told). The parser drops `//////CB` and `///CB`
// with their cumulonimbus, and `VV///` and `VV001///` altogether, and keeps `BKN000` and `OVC000` (a
// layer on the ground) without their height.
const LAYER = /^(FEW|SCT|BKN|OVC|\/\/\/)(\d{3}|\/\/\/)(CB|TCU|\/\/\/)?$/;
const TYPE_ONLY = /^\/{2,}(CB|TCU)$/;
const VERTICAL = /^VV(\d{3}|\/\/\/)(?:\/\/\/)?$/;

export interface Sky {
  /** The lowest broken or overcast base, or the vertical visibility, in feet; null when none has a height. */
  ceilingFt: number | null;
  /** The sky obscured and its vertical visibility not measured (`VV///`). */
  obscuredWithoutHeight: boolean;
  /** A cumulonimbus in a cloud group, whether or not its amount and base were told. */
  cumulonimbus: boolean;
}

export function skyOf(groups: readonly string[]): Sky {
  const ceilings: number[] = [];
  const sky: Sky = { ceilingFt: null, obscuredWithoutHeight: false, cumulonimbus: false };
  for (const group of groups) {
    const vertical = VERTICAL.exec(group);
    if (vertical) {
      if (vertical[1] === '///') sky.obscuredWithoutHeight = true;
      else ceilings.push(Number(vertical[1]) * 100);
      continue;
    }
    const layer = LAYER.exec(group);
    if (layer) {
      if ((layer[1] === 'BKN' || layer[1] === 'OVC') && layer[2] !== '///') ceilings.push(Number(layer[2]) * 100);
      if (layer[3] === 'CB') sky.cumulonimbus = true;
      continue;
    }
    if (TYPE_ONLY.exec(group)?.[1] === 'CB') sky.cumulonimbus = true;
  }
  sky.ceilingFt = ceilings.length > 0 ? Math.min(...ceilings) : null;
  return sky;
}
