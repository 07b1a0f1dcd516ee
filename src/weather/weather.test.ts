// The flags, table-tested on real reports: those marked "corpus" are METARs from metar-taf-parser's
// own test suite (github.com/aeharding/metar-taf-parser, tests/parser/parser.test.ts), issued by
// the stations they name. Those marked "constructed" are written to the WMO code (FM 15) for the
// phenomena that corpus lacks (freezing rain, heavy snow, volcanic ash); the archive's fixture
// (circumstances-real.test.ts) brings recorded ones.
import { describe, expect, it } from 'vitest';
import { crosswindKt, flagsOf, readReport, ReportError, type WeatherFlag } from './index.js';

const AT = Date.UTC(2024, 0, 17, 8, 30);

describe('reading a METAR', () => {
  it('keeps the raw text and converts to knots, metres and feet', () => {
    // corpus: Paris CDG in fog, eight runways' visual ranges.
    const cdg = readReport(
      'LFPG 170830Z 00000KT 0350 R27L/0375N R09R/0175N R26R/0500D R08L/0400N R26L/0275D R08R/0250N R27R/0300N R09L/0200N FG SCT000 M01/M01 Q1026 NOSIG=',
      AT,
    );
    expect(cdg).toMatchObject({
      station: 'LFPG',
      at: AT,
      visibilityM: 350,
      rvrM: 175,
      ceilingFt: null,
      cumulonimbus: false,
      weather: ['FG'],
    });
    expect(cdg.raw).toBe(
      'LFPG 170830Z 00000KT 0350 R27L/0375N R09R/0175N R26R/0500D R08L/0400N R26L/0275D R08R/0250N R27R/0300N R09L/0200N FG SCT000 M01/M01 Q1026 NOSIG',
    );
    // corpus: a wind in metres per second (Barnaul), CAVOK.
    expect(readReport('UNAA 240830Z 34002MPS CAVOK M14/M18 Q1019 R02/190054 NOSIG RMK QFE741', AT)).toMatchObject({
      wind: { direction: 340, speedKt: 4, gustKt: null },
      visibilityM: 10_000,
    });
    // corpus: statute miles and a ceiling (Trenton).
    expect(readReport('KTTN 051853Z 04011KT 1 1/2SM VCTS SN FZFG BKN003 OVC010 M02/M02 A3006', AT)).toMatchObject({
      visibilityM: 2414,
      ceilingFt: 300,
      weather: ['VCTS', 'SN', 'FZFG'],
    });
    // corpus: vertical visibility counts as the ceiling (Lyon).
    expect(readReport('LFLL 160730Z 28002KT 0350 FG VV002', AT).ceilingFt).toBe(200);
  });

  it('refuses text that is not a report', () => {
    expect(() => readReport('hello world', AT)).toThrow(ReportError);
    expect(() => readReport('', AT)).toThrow(ReportError);
  });
});

describe('flags', () => {
  const table: [string, string, WeatherFlag[]][] = [
    [
      'corpus: fog at CDG, RVR down to 175 m',
      'LFPG 170830Z 00000KT 0350 R27L/0375N R09R/0175N FG SCT000 M01/M01 Q1026 NOSIG',
      ['low_visibility', 'below_minima'],
    ],
    [
      'corpus: fog at Lyon, vertical visibility 200 ft (at the CAT I minimum, not below it)',
      'LFLL 160730Z 28002KT 0350 FG VV002',
      ['low_visibility'],
    ],
    [
      'corpus: a thunderstorm with cumulonimbus (Goroka)',
      'AGGH 140340Z 05010KT 9999 TS FEW020 SCT021CB BKN300 32/26 Q1010',
      ['thunderstorm'],
    ],
    [
      'corpus: a thunderstorm in the vicinity, snow and freezing fog (Trenton)',
      'KTTN 051853Z 04011KT 1 1/2SM VCTS SN FZFG BKN003 OVC010 M02/M02 A3006',
      ['thunderstorm', 'snow'],
    ],
    [
      'corpus: gusts to 40 kt (Lakselv)',
      'ENLK 081350Z 26026G40 240V300 9999 VCSH FEW025 BKN030 02/M01 Q0996',
      ['strong_wind'],
    ],
    ['corpus: gusts to 25 kt are within limits', 'LFPG 161430Z 24015G25KT 5000 1100w', []],
    ['corpus: CAVOK', 'LFPG 212030Z 03003KT CAVOK 09/06 Q1031 NOSIG', []],
    [
      'corpus: a thunderstorm only in the trend is not the present weather',
      'LFBG 081130Z AUTO 23012KT 9999 SCT022 BKN072 BKN090 22/16 Q1011 TEMPO 26015G25KT 3000 TSRA SCT025CB BKN050',
      [],
    ],
    [
      'constructed: freezing rain',
      'EDDF 100620Z 09008KT 4000 FZRA BKN008 OVC015 M01/M02 Q1012',
      ['freezing_precipitation'],
    ],
    [
      'constructed: heavy snow showers',
      'ESSA 150550Z 36012KT 0600 R01L/0650U +SHSN VV004 M05/M06 Q1002',
      ['low_visibility', 'snow', 'heavy_snow'],
    ],
    ['constructed: volcanic ash', 'BIKF 141200Z 07015KT 5000 VA SCT030 04/M02 Q1009', ['volcanic_ash']],
  ];

  it.each(table)('%s', (_what, raw, expected) => {
    expect(flagsOf(readReport(raw, AT))).toEqual(expected);
  });

  it('flags a crosswind only where the runway headings are known, on the best-aligned runway', () => {
    // corpus: 260° at 26 kt gusting 40 (Lakselv).
    const lakselv = readReport('ENLK 081350Z 26026G40 240V300 9999 VCSH FEW025 BKN030 02/M01 Q0996', AT);
    expect(flagsOf(lakselv)).not.toContain('crosswind');
    // Runways 17/35 (true 168°/348°): the gust of 40 kt blows 88° across the better one.
    expect(flagsOf(lakselv, [168, 348])).toContain('crosswind');
    // A runway along the wind takes it head-on.
    expect(flagsOf(lakselv, [262, 82])).not.toContain('crosswind');
  });
});

describe('the crosswind component', () => {
  const wind = (direction: number | null, speedKt: number, gustKt: number | null = null) => ({
    direction,
    speedKt,
    gustKt,
  });

  it('is the wind times the sine of its angle to the runway, on the runway with the least, gusts counted', () => {
    expect(crosswindKt(wind(270, 20), [270])).toBe(0);
    expect(crosswindKt(wind(270, 20), [360])).toBe(20);
    expect(crosswindKt(wind(300, 20), [270])).toBe(10); // sin 30° = 0.5
    expect(crosswindKt(wind(300, 20, 30), [270])).toBe(15);
    expect(crosswindKt(wind(45, 20), [90, 360])).toBe(14); // 45° either way: 20 × 0.707
    expect(crosswindKt(wind(10, 20), [350, 80])).toBe(7); // across 360°: 20° to runway 35
    expect(crosswindKt(wind(90, 20), [270])).toBe(0); // a tailwind is not a crosswind
  });

  it('counts a variable wind in full, and is unknown without runways or wind', () => {
    expect(crosswindKt(wind(null, 6), [90])).toBe(6);
    expect(crosswindKt(wind(270, 20), [])).toBeNull();
    expect(crosswindKt(null, [90])).toBeNull();
  });
});
