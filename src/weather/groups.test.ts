// Groups metar-taf-parser 9.1.3 drops or misreads, read right (docs/weather.md, "Reports"), table-tested on
// recorded reports. Each row names where the report was found: public repositories that keep real
// reports as their tests' fixtures (`owner/repo path@commit`; the station and the day or archive they
// came from where the source says). "constructed" rows are written to the WMO code (FM 15) for forms
// no recorded report found in those sources shows, and say so.
import { describe, expect, it } from 'vitest';
import { bodyGroups, runwayRangesM, skyOf, statuteMilesM } from './groups.js';
import { flagsOf, readReport, severityOf, type WeatherFlag, type WeatherReport } from './index.js';

const AT = Date.UTC(2024, 0, 17, 8, 30);

describe('reading the groups the parser misreads', () => {
  const table: [string, string, Partial<WeatherReport>][] = [
    // Runway visual range without a tendency letter (FM 15 allows it; the parser needs U, D or N).
    // lilopkins/metar-rs tests/metars.rs@22db43ff65bbd3ff80242f99680286eeb57915b5 (Southampton)
    ['recorded: R20/1000, no tendency', 'EGHI 150650Z 06001KT 0500 R20/1000 FG VV/// 11/10 Q1003', { rvrM: 1000 }],
    // lspaschoal/xng js/Metar.js@6b2501a23c68e87b8d075246773154ecabf84206 (Goiânia, REDEMET)
    [
      'recorded: R31/P2000, more than 2,000 m',
      'SBCO 071010Z VRB01KT 0800 R31/P2000 R13/P2000 FG BKN003 21/21 Q1007',
      { rvrM: 2000 },
    ],
    [
      'constructed: R35L/M0050, less than 50 m (the issue’s Malpensa groups)',
      'LIMC 010050Z 00000KT 0050 R35L/M0050 FG VV/// M01/M01 Q1020',
      { rvrM: 50 },
    ],
    [
      'constructed: R36/0400V0600, varying from 400 to 600 m',
      'LIMC 010120Z 00000KT 0300 R36/0400V0600 FG VV001 M01/M01 Q1020',
      { rvrM: 400 },
    ],
    // Wind in km/h, the code's KMH (the parser knows only KM/H and reads the figures as knots).
    [
      'constructed: 27040G60KMH, 40 km/h gusting 60',
      'EDDF 100620Z 27040G60KMH 9999 FEW030 12/05 Q1012',
      { wind: { direction: 270, speedKt: 22, gustKt: 32 } },
    ],
    [
      'constructed: 360105G130KT, a mean wind of three figures',
      'RJTT 300600Z 360105G130KT 0800 +TSRA BKN005CB 24/23 Q0952',
      { wind: { direction: 360, speedKt: 105, gustKt: 130 } },
    ],
    // Unidata/MetPy tests/io/test_metar.py@9c45ccc0781d9718c8fef1cda263de23bcd9737c (Lanzhou, May 2017)
    [
      'recorded: 13010MPS, metres a second (already right)',
      'COR ZLLL 101100Z 13010MPS 5000 -SHRA BLDU FEW033CB BKN046 21/11 Q1014 BECMG TL1240 04004MPS NSW',
      { wind: { direction: 130, speedKt: 19, gustKt: null } },
    ],
    // Statute miles: eighths were rounded to hundredths of a mile (0.13 mi, 209 m), sixteenths dropped.
    // joeyates/metar-parser test/unit/parser_test.rb@bf6a21181012e94c1a0cd0e7a9e2a90566208341 (Sioux Lookout, NOAA 2010-02-15 10:34)
    [
      'recorded: 1/8SM is 201 m',
      'CYXS 151034Z AUTO 09003KT 1/8SM FZFG VV001 M03/M03 A3019 RMK SLP263 ICG',
      { visibilityM: 201, ceilingFt: 100 },
    ],
    // Unidata/MetPy tests/io/test_metar.py@9c45ccc0781d9718c8fef1cda263de23bcd9737c (Denver, May 2017)
    [
      'recorded: 1/16SM is 101 m',
      'KDEN 241600Z 02010KT 1/16SM R35L/1000V1200FT FZFG VV001 M01/M02 A2954 RMK AO2 SFC VIS M1/4 T10111022',
      { visibilityM: 101, rvrM: 305 },
    ],
    // Unidata/MetPy tests/io/test_metar.py@9c45ccc0781d9718c8fef1cda263de23bcd9737c (K4BM, May 2017)
    [
      'recorded: M1/4SM, less than 402 m (already right)',
      'K4BM 020127Z AUTO 04013G24KT 010V080 M1/4SM -VCTSSN OVC002 07/06 A3060 RMK AO2 LTG DSNT SE THRU SW',
      { visibilityM: 402, ceilingFt: 200 },
    ],
    // Cloud groups: a cumulonimbus whose amount and base an automatic station could not tell.
    // lilopkins/metar-rs tests/metars.rs@22db43ff65bbd3ff80242f99680286eeb57915b5 (Bristol)
    [
      'recorded: //////CB',
      'EGGD 061920Z AUTO 14007KT 9999 SCT035/// //////CB 07/06 Q0997',
      { cumulonimbus: true, ceilingFt: null },
    ],
    // Unidata/MetPy tests/io/test_metar.py@9c45ccc0781d9718c8fef1cda263de23bcd9737c (Fort-de-France, May 2017)
    [
      'recorded: ///CB',
      'TFFF 111830Z AUTO 11019G30KT 1000 0600 R10/1100D RA BCFG FEW014/// BKN021/// BKN027/// ///CB 27/24 Q1015',
      { cumulonimbus: true, ceilingFt: 2100 },
    ],
    // lspaschoal/xng js/Metar.js@6b2501a23c68e87b8d075246773154ecabf84206 (Bagé, REDEMET)
    [
      'recorded: //////CB with VCTS',
      'SBBG 261800Z AUTO 27008KT 240V300 9999 VCTS //////CB 29/18 Q1013 RETS',
      { cumulonimbus: true },
    ],
    // Vertical visibility: not measured (VV///), or with a cloud type not told (VV001///).
    // Unidata/MetPy tests/io/test_metar.py@9c45ccc0781d9718c8fef1cda263de23bcd9737c (Concepción, May 2017)
    [
      'recorded: VV///, sky obscured, height not measured',
      'SLCP 011200Z 18008KT 0100 FG VV/// 19/19 Q1019=',
      { ceilingFt: null, ceilingUnknown: true },
    ],
    // lilopkins/metar-rs tests/metars.rs@22db43ff65bbd3ff80242f99680286eeb57915b5 (Southampton)
    [
      'recorded: VV/// beside an RVR',
      'EGHI 150650Z 06001KT 0500 R20/1000 FG VV/// 11/10 Q1003',
      { ceilingFt: null, ceilingUnknown: true },
    ],
    // Unidata/MetPy tests/io/test_metar.py@9c45ccc0781d9718c8fef1cda263de23bcd9737c (Nuuk, May 2017)
    [
      'recorded: VV001///',
      'BGGH 060750Z AUTO 36004KT 0100NDV +SG VV001/// 05/05 Q1000',
      { ceilingFt: 100, ceilingUnknown: false },
    ],
    [
      'constructed: OVC000, an overcast on the ground',
      'EKVG 291550Z AUTO 13009KT 0300 FG OVC000 07/06 Q1009',
      { ceilingFt: 0, ceilingUnknown: false },
    ],
  ];

  it.each(table)('%s', (_what, raw, expected) => {
    expect(readReport(raw, AT)).toMatchObject(expected);
  });
});

describe('rating them', () => {
  const table: [string, string, WeatherFlag[], ReturnType<typeof severityOf>][] = [
    // RVR under 50 m was read as no RVR, so the fog's minima were never broken.
    [
      'constructed: the issue’s Malpensa fog, RVR under 50 m, beyond limits',
      'LIMC 010050Z 00000KT 0050 R35L/M0050 FG VV/// M01/M01 Q1020',
      ['low_visibility', 'below_minima', 'ceiling_unknown'],
      'beyond_limits',
    ],
    // The sky obscured without a height is not shown to be under the minima: within limits, flagged.
    // lilopkins/metar-rs tests/metars.rs@22db43ff65bbd3ff80242f99680286eeb57915b5
    [
      'recorded: fog at Southampton, RVR 1,000 m, sky obscured without a height',
      'EGHI 150650Z 06001KT 0500 R20/1000 FG VV/// 11/10 Q1003',
      ['low_visibility', 'ceiling_unknown'],
      'within_limits',
    ],
    // Unidata/MetPy tests/io/test_metar.py@9c45ccc0781d9718c8fef1cda263de23bcd9737c
    [
      'recorded: fog at Concepción, 100 m, sky obscured without a height',
      'SLCP 011200Z 18008KT 0100 FG VV/// 19/19 Q1019=',
      ['low_visibility', 'ceiling_unknown'],
      'within_limits',
    ],
    [
      'recorded: heavy snow grains at Nuuk, vertical visibility 100 ft',
      'BGGH 060750Z AUTO 36004KT 0100NDV +SG VV001/// 05/05 Q1000',
      ['low_visibility', 'below_minima', 'snow'],
      'beyond_limits',
    ],
    [
      'recorded: a cumulonimbus of unknown amount at Fort-de-France',
      'TFFF 111830Z AUTO 11019G30KT 1000 0600 R10/1100D RA BCFG FEW014/// BKN021/// BKN027/// ///CB 27/24 Q1015',
      ['thunderstorm'],
      'within_limits',
    ],
    // lilopkins/metar-rs tests/metars.rs@22db43ff65bbd3ff80242f99680286eeb57915b5
    [
      'recorded: a cumulonimbus of unknown amount at Bristol',
      'EGGD 061920Z AUTO 14007KT 9999 SCT035/// //////CB 07/06 Q0997',
      ['thunderstorm'],
      'within_limits',
    ],
    // 40 km/h is 22 kt: not a strong wind (read as 40 kt gusting 60, it was).
    ['constructed: 27040G60KMH is no strong wind', 'EDDF 100620Z 27040G60KMH 9999 FEW030 12/05 Q1012', [], 'none'],
    [
      'constructed: an overcast on the ground is under the minima',
      'EKVG 291550Z AUTO 13009KT 0300 FG OVC000 07/06 Q1009',
      ['low_visibility', 'below_minima'],
      'beyond_limits',
    ],
  ];

  it.each(table)('%s', (_what, raw, flags, severity) => {
    const report = readReport(raw, AT);
    expect(flagsOf(report)).toEqual(flags);
    expect(severityOf(report, flagsOf(report))).toBe(severity);
  });
});

describe('the readers', () => {
  it('read the body only: not the trend, not the remarks', () => {
    // corpus (metar-taf-parser's own tests): Barnaul, with a runway state group, NOSIG and a remark.
    expect(bodyGroups('UNAA 240830Z 34002MPS CAVOK M14/M18 Q1019 R02/190054 NOSIG RMK QFE741')).toEqual([
      'UNAA',
      '240830Z',
      '34002MPS',
      'CAVOK',
      'M14/M18',
      'Q1019',
      'R02/190054',
    ]);
    // corpus: Bordeaux, a cumulonimbus only in the TEMPO trend.
    expect(
      bodyGroups(
        'LFBG 081130Z AUTO 23012KT 9999 SCT022 BKN072 BKN090 22/16 Q1011 TEMPO 26015G25KT 3000 TSRA SCT025CB BKN050=',
      ),
    ).toEqual(['LFBG', '081130Z', 'AUTO', '23012KT', '9999', 'SCT022', 'BKN072', 'BKN090', '22/16', 'Q1011']);
  });

  it('read runway visual ranges in every form, at their bounds, and nothing else', () => {
    // The four groups, an M on a varying group's lower value, then forms the parser reads too.
    const groups = [
      'R35L/0350',
      'R36/0400V0600',
      'R17/P2000',
      'R35L/M0050',
      'R06/M0050V0200U',
      'R27L/0375N',
      'R01L/0600V1000FT',
      'R36/4000FT/D',
    ];
    expect(runwayRangesM(groups)).toEqual([350, 400, 2000, 50, 50, 375, 183, 1219]);
    // A runway state group, a range not reported, a closed runway: no range.
    expect(runwayRangesM(['R24/290050', 'R24/////', 'R/SNOCLO', 'R88/CLRD70'])).toEqual([]);
  });

  it('read statute miles to the metre: 1,609.344 m a mile, fractions unrounded', () => {
    const m = (...groups: string[]) => statuteMilesM(['KXXX', '151034Z', '09003KT', ...groups, 'FG']);
    expect([m('1/8SM'), m('1/16SM'), m('3/16SM'), m('1', '1/2SM'), m('M1/4SM'), m('P6SM'), m('10SM')]).toEqual([
      201, 101, 302, 2414, 402, 9656, 16093,
    ]);
    // No visibility in miles, or none that is a number.
    expect([m('0800'), m('1/0SM')]).toEqual([null, null]);
  });

  it('read the sky: ceilings with heights, an obscured sky without one, a cumulonimbus however told', () => {
    expect(skyOf(['FEW005', 'BKN012', 'OVC040CB', 'VV///'])).toEqual({
      ceilingFt: 1200,
      obscuredWithoutHeight: true,
      cumulonimbus: true,
    });
    expect(skyOf(['BKN///', 'OVC///', '//////', '/////////', '///015', '//////TCU', 'SCT000'])).toEqual({
      ceilingFt: null,
      obscuredWithoutHeight: false,
      cumulonimbus: false,
    });
    expect(skyOf(['VV000'])).toEqual({ ceilingFt: 0, obscuredWithoutHeight: false, cumulonimbus: false });
  });
});
