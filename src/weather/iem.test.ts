// The IEM adapter against a local stand-in for asos.py replaying real archived reports (provenance in
// test/fixtures/iem/reports.json): what it asks, what it reads back, and how it fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { startIemFixture, type IemFixture } from '../../test/helpers/iem-fixture.js';
import { flagsOf, severityOf } from './flags.js';
import { IemWeatherProvider, readCsv } from './iem.js';

const at = (text: string) => Date.parse(text);

describe('the IEM METAR archive', () => {
  let fixture: IemFixture;
  let iem: IemWeatherProvider;
  beforeAll(async () => {
    fixture = await startIemFixture();
    iem = new IemWeatherProvider(
      { url: fixture.url, requestsPerMinute: 1000 },
      new ManualClock(at('2026-03-01T00:00:00Z')),
    );
  });
  afterAll(() => fixture.close());

  it("asks asos.py for one station's routine and special reports in UTC, and reads them back with their flags", async () => {
    const answer = await iem.reports(
      { station: 'EHAM', from: at('2019-06-05T21:00:00Z'), to: at('2019-06-05T23:00:00Z') },
      { timeoutMs: 5000 },
    );
    expect(answer.outcome).toBe('hit');
    if (answer.outcome !== 'hit') return;
    expect(answer.value.map((r) => new Date(r.at).toISOString().slice(11, 16))).toEqual([
      '21:25',
      '21:55',
      '22:25',
      '22:55',
    ]);
    const heavy = answer.value[2]!;
    expect(heavy.raw).toBe(
      'EHAM 052225Z 26016G26KT 210V300 1600 +TSRA FEW004 SCT022 BKN050CB 12/11 Q1007 RETSGR BECMG 6000 -TSRA',
    );
    expect(flagsOf(heavy)).toEqual(['thunderstorm']);
    expect(severityOf(heavy, flagsOf(heavy))).toBe('beyond_limits');
    const sent = fixture.requests.at(-1)!;
    expect(sent.query.get('station')).toBe('EHAM');
    expect(sent.query.get('data')).toBe('metar');
    expect(sent.query.get('sts')).toBe('2019-06-05T21:00Z');
    expect(sent.query.get('ets')).toBe('2019-06-05T23:00Z');
    expect(sent.query.get('tz')).toBe('Etc/UTC');
    expect(sent.query.get('format')).toBe('onlycomma');
    expect(sent.query.getAll('report_type')).toEqual(['3', '4']);
  });

  it('reads real freezing fog below the CAT I minima, and a gale across the runway where headings are known', async () => {
    const fog = await iem.reports({
      station: 'EHAM',
      from: at('2019-01-18T23:30:00Z'),
      to: at('2019-01-19T00:30:00Z'),
    });
    if (fog.outcome !== 'hit') throw new Error('no fog');
    // 0600 FZFG BKN001, RVR 700–1,100 m: visibility under 800 m, a ceiling under 200 ft.
    expect(fog.value.map((r) => flagsOf(r))).toEqual([
      ['low_visibility', 'below_minima'],
      ['low_visibility', 'below_minima'],
    ]);
    const gale = await iem.reports({
      station: 'EHAM',
      from: at('2019-03-07T16:00:00Z'),
      to: at('2019-03-07T18:00:00Z'),
    });
    if (gale.outcome !== 'hit') throw new Error('no gale');
    // 22030G45KT across Schiphol's 18C/36C (183°/3°): 45 × sin(39°) ≈ 28 kt.
    const report = gale.value.find((r) => r.raw.includes('22030G45KT'))!;
    expect(flagsOf(report, [183, 3])).toEqual(['strong_wind', 'crosswind']);
  });

  it('answers a station without reports with none, and a bad station code with a miss unsent', async () => {
    const sent = fixture.requests.length;
    expect(
      await iem.reports({ station: 'LFPG', from: at('2019-06-05T21:00:00Z'), to: at('2019-06-05T23:00:00Z') }),
    ).toEqual({ outcome: 'hit', value: [] });
    expect(await iem.reports({ station: "E'; DROP", from: 0, to: 1 })).toEqual({ outcome: 'miss' });
    expect(fixture.requests.length).toBe(sent + 1);
  });

  it('turns an overloaded archive, a refusal and an answer that is not its CSV into errors safe to retry', async () => {
    fixture.script.push(
      { status: 503, body: 'ERROR: server over capacity, please try later', headers: { 'content-type': 'text/plain' } },
      { status: 503, body: 'x' },
      { status: 503, body: 'x' },
    );
    const overloaded = await iem.reports(
      { station: 'EHAM', from: at('2019-06-05T21:00:00Z'), to: at('2019-06-05T22:00:00Z') },
      { timeoutMs: 5000 },
    );
    expect(overloaded).toMatchObject({ outcome: 'error', error: { kind: 'unavailable' } });
    fixture.script.push({ status: 200, body: '<html>maintenance</html>', headers: { 'content-type': 'text/html' } });
    expect(
      await iem.reports({ station: 'EHAM', from: at('2019-06-05T21:00:00Z'), to: at('2019-06-05T22:00:00Z') }),
    ).toMatchObject({ outcome: 'error', error: { kind: 'bad_response' } });
    expect(iem.status().stats?.kinds.weather?.calls).toBeGreaterThan(3);
  });

  it('keeps the readable lines of an answer: comments, other stations, missing values and text no parser reads are left out', () => {
    const text = [
      '#DEBUG: Format Typ    -> onlycomma',
      'station,valid,metar',
      'EHAM,2019-06-05 21:25,EHAM 052125Z 01011KT 9999 -TSRA SCT060CB 14/12 Q1003',
      'EGLL,2019-06-05 21:20,EGLL 052120Z 24010KT 9999 FEW040 15/09 Q1010',
      'EHAM,2019-06-05 21:55,M',
      'EHAM,2019-06-05 22:25,not a report at all',
      '',
    ].join('\r\n');
    expect(readCsv(text, 'EHAM')!.map((r) => r.raw)).toEqual(['EHAM 052125Z 01011KT 9999 -TSRA SCT060CB 14/12 Q1003']);
    expect(readCsv('<html></html>', 'EHAM')).toBeNull();
  });
});
