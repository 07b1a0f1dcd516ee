// Circumstances on real data, as a user of FLIGHTSTATUS_PROVIDERS=aerodatabox and FLIGHTSTATUS_WEATHER=iem
// gets them, against local stand-ins for both: AeroDataBox (its schema and quirks) and the IEM archive
// replaying real Schiphol reports of the thunderstorms of 5 June 2019 (test/fixtures/iem/reports.json).
// KLM's aircraft lands three hours late at AMS in the storm; its next flight waits for it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADB_KEY, startAdbFixture, type AdbFixture, type AdbFlight } from './helpers/aerodatabox-fixture.js';
import { startIemFixture, type IemFixture } from './helpers/iem-fixture.js';
import { describeEachDatabase } from './helpers/databases.js';
import { ADMIN_TOKEN, bearer, json, startTestApp, type TestApp } from './helpers/app.js';

const DATE = '2019-06-05';
const aircraft = { reg: 'PH-BXA', modeS: '484161', model: 'Boeing 737-800' };
const klm = { name: 'KLM', iata: 'KL', icao: 'KLM' };
const FLIGHTS: AdbFlight[] = [
  {
    number: 'KL 1008',
    callSign: 'KLM1008',
    status: 'Arrived',
    airline: klm,
    aircraft,
    departure: { iata: 'LHR', icao: 'EGLL', offset: 60, scheduled: `${DATE}T20:05Z`, revised: `${DATE}T23:20Z` },
    arrival: { iata: 'AMS', icao: 'EHAM', offset: 120, scheduled: `${DATE}T21:15Z`, revised: '2019-06-06T00:40Z' },
  },
  {
    number: 'KL 1011',
    callSign: 'KLM1011',
    status: 'Arrived',
    airline: klm,
    aircraft,
    departure: { iata: 'AMS', icao: 'EHAM', offset: 120, scheduled: `${DATE}T22:00Z`, revised: '2019-06-06T01:25Z' },
    arrival: { iata: 'LHR', icao: 'EGLL', offset: 60, scheduled: `${DATE}T23:15Z`, revised: '2019-06-06T02:35Z' },
  },
];

describeEachDatabase('circumstances from AeroDataBox and the IEM archive', (kind) => {
  let adb: AdbFixture;
  let iem: IemFixture;
  let t: TestApp;
  let key: string;
  const lookup = async (flightNumber: string) =>
    json(await t.get(`/api/v1/flights/status?flightNumber=${flightNumber}&flightDate=${DATE}`, bearer(key))).data;

  beforeAll(async () => {
    adb = await startAdbFixture([...FLIGHTS]);
    iem = await startIemFixture();
    t = await startTestApp(kind, {
      providerNames: ['aerodatabox'],
      upstream: { aerodatabox: { key: ADB_KEY, url: adb.url, requestsPerMinute: 1000 } },
      weather: { source: 'iem', iem: { url: iem.url, requestsPerMinute: 1000 } },
    });
    key = (await t.account()).key;
  });
  afterAll(async () => {
    await t?.close();
    await adb?.close();
    await iem?.close();
  });

  it('names the thunderstorm at Schiphol, with the reports that show it, as likely extraordinary', async () => {
    const data = await lookup('KL1008');
    expect(data.selected).toMatchObject({ status: 'delayed', delayMinutes: 205 });
    expect(data.circumstances).toMatchObject({
      assessment: 'likely_extraordinary',
      cause: 'weather',
      originLeg: null,
      airport: [],
    });
    const reports = data.circumstances.weather as { airport: string; at: string; flags: string[]; report: string }[];
    // Every report consulted (the archive's fixture holds Schiphol's), in time order; the storm's among them.
    expect(reports.every((r) => r.airport === 'LHR' || r.airport === 'AMS')).toBe(true);
    expect(reports.map((r) => r.at)).toEqual(reports.map((r) => r.at).sort());
    expect(reports.filter((r) => r.flags.includes('thunderstorm')).every((r) => r.airport === 'AMS')).toBe(true);
    // 2019: not watched, and AeroDataBox's stored flights at those airports (its feeds' dates) do not
    // reach back that far, so their boards of the day could not be read after the fact either.
    expect(data.circumstances.seen).toMatchObject({
      weather: [{ airport: 'LHR' }, { airport: 'AMS', status: 'read' }],
      boards: [
        { airport: 'LHR', status: 'not_available' },
        { airport: 'AMS', status: 'not_available' },
      ],
      aircraft: 'followed',
    });
    expect(reports.map((r) => r.report)).toContain(
      'EHAM 052055Z 35010KT 320V020 9000 -TSRA FEW012 BKN035 SCT060CB 15/11 Q1005 TEMPO 5000 BECMG NSW',
    );
    expect(data.circumstances.reasons.join(' ')).toMatch(
      /Thunderstorm at AMS 20:55 UTC \(METAR EHAM 052055Z .*\).*Art\. 5\(3\).*C-549\/07/,
    );
    expect(data.compensation).toMatchObject({ eu261: { amountEur: 250 }, amountAtRisk: true });
    expect(data.compensation.deadlines.map((d: { country: string }) => d.country).sort()).toEqual(['GB', 'NL']);
  });

  it("traces the next flight's delay to the same aircraft's late arrival, and the storm behind it (C-74/19)", async () => {
    const data = await lookup('KL1011');
    expect(data.circumstances).toMatchObject({
      assessment: 'likely_extraordinary',
      cause: 'knock_on',
      originLeg: { flightNumber: 'KL1008', flightDate: DATE, origin: 'LHR', destination: 'AMS' },
    });
    expect(data.circumstances.reasons.join(' ')).toContain('C-74/19');
    // One call for the aircraft's day (by registration), besides the flight itself.
    const rotation = adb.requests.filter((r) => r.path.startsWith('/flights/reg/PH-BXA/'));
    expect(rotation.length).toBe(2);
    const providers = json(await t.get('/api/admin/v1/providers', { authorization: `Bearer ${ADMIN_TOKEN}` })).data;
    expect(providers.providers[0].calls.rotation).toMatchObject({ calls: 2, outcomes: { hit: 2 } });
    expect(providers.weather).toMatchObject({
      name: 'iem',
      url: iem.url,
      calls: { weather: { calls: expect.any(Number) } },
    });
  });

  it('says the weather is unknown, never fine, when the archive cannot be asked; the flight still answers', async () => {
    iem.script.push(...Array.from({ length: 12 }, () => ({ status: 503, body: 'ERROR: server over capacity' })));
    const data = json(
      await t.get(`/api/v1/flights/status?flightNumber=KL1008&flightDate=${DATE}&refresh=1`, bearer(key)),
    ).data;
    expect(data.selected.status).toBe('delayed');
    expect(data.circumstances).toMatchObject({ assessment: 'unknown', cause: 'unknown' });
    // Owed, and whether the amount is at risk could not be checked: not known, never "not at risk".
    expect(data.compensation.amountAtRisk).toBeNull();
    iem.script.length = 0;
  });
});
