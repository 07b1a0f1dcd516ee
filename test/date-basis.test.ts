// dateBasis (issue 44, section 2) through HTTP on each database: a flight asked by the local date a
// boarding pass prints, east of UTC (Málaga, UTC+1) and west of it (New York, UTC-5), on both sides
// of midnight; the UTC lookup's note when the flight it finds departs on another local date; the
// local times beside the UTC ones; one credit however many UTC dates the local day needed.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadReferenceAirports } from '../src/airports/index.js';
import { offsetMinutes } from '../src/providers/zones.js';
import { groundTruth, type TruthFlight } from '../src/sim/index.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';
import { waitForBatch } from './helpers/batches.js';
import { describeEachDatabase } from './helpers/databases.js';

const airports = loadReferenceAirports();
const localDate = (f: TruthFlight) => {
  const at = Date.parse(f.scheduledDeparture);
  return new Date(at + offsetMinutes(airports.find(f.origin)!.timezone, at) * 60_000).toISOString().slice(0, 10);
};

describeEachDatabase('dateBasis', (kind) => {
  let t: TestApp;
  let key: string;
  const used = async () =>
    (await t.app.db.kysely.selectFrom('credit_windows').select('used').execute()).reduce((s, r) => s + r.used, 0);
  const ask = async (params: Record<string, string>) => {
    const response = await t.get(`/api/v1/flights/status?${new URLSearchParams(params)}`, bearer(key));
    expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
    return json(response).data;
  };
  /** A passenger flight from `origin`'s zone whose number flies once that UTC day, departing on another local date or the same. */
  const flight = (zone: string, date: string, crosses: boolean): TruthFlight => {
    const day = groundTruth(t.app.sim!, date);
    const legs = new Map<string, number>();
    for (const f of day) legs.set(f.flightNumber, (legs.get(f.flightNumber) ?? 0) + 1);
    const found = day.find(
      (f) =>
        f.operation === 'passenger' &&
        legs.get(f.flightNumber) === 1 &&
        airports.find(f.origin)?.timezone === zone &&
        (localDate(f) !== f.flightDate) === crosses,
    );
    expect(found, `a flight from ${zone} on ${date}${crosses ? ' across midnight' : ''}`).toBeDefined();
    return found!;
  };

  beforeAll(async () => {
    t = await startTestApp(kind);
    key = (await t.account()).key;
  });
  afterAll(async () => t?.close());

  for (const [side, zone] of [
    ['east of UTC', 'Europe/Madrid'],
    ['west of UTC', 'America/New_York'],
  ] as const) {
    it(`finds a flight ${side} by the local date its boarding pass prints, across midnight and before it, for one credit`, async () => {
      for (const crosses of [true, false]) {
        const f = flight(zone, '2026-02-20', crosses);
        const local = localDate(f);
        for (const origin of [{}, { origin: f.origin }] as Record<string, string>[]) {
          const before = await used();
          const data = await ask({ flightNumber: f.flightNumber, flightDate: local, dateBasis: 'local', ...origin });
          expect(await used()).toBe(before + 1);
          expect(data).toMatchObject({ flightDate: local, dateBasis: 'local' });
          expect(data.selected.scheduledDeparture).toBe(f.scheduledDeparture);
          expect(data.localTimes.departure).toMatchObject({ airport: f.origin, timezone: zone });
          expect(data.localTimes.departure.scheduled.slice(0, 10)).toBe(local);
          expect(data.flightDelay.disruption.rationale.join(' ')).toContain(
            `Asked by the local date ${local} at the departure airport: the flight's scheduled departure is on ${f.flightDate} in UTC`,
          );
          expect(data.flightDelay.disruption.rationale.join(' ')).not.toContain('Asked by the UTC date');
        }
      }
      // The proof image is drawn once, for the flight found, under the date as asked.
      const f = flight(zone, '2026-02-20', true);
      const shown = await ask({
        flightNumber: f.flightNumber,
        flightDate: localDate(f),
        dateBasis: 'local',
        screenshot: '1',
      });
      expect(shown.proof?.width ?? shown.proofError).toBeTruthy();
      expect(shown.flightDate).toBe(localDate(f));
    });
  }

  it('says, asked by the UTC date, that the flight found departs on another local date, and gives its local times beside the UTC ones', async () => {
    const f = flight('Europe/Madrid', '2026-02-20', true);
    const data = await ask({ flightNumber: f.flightNumber, flightDate: f.flightDate });
    expect(data).toMatchObject({ flightDate: f.flightDate, dateBasis: 'utc' });
    expect(data.selected.scheduledDeparture).toBe(f.scheduledDeparture);
    const at = new Date(Date.parse(f.scheduledDeparture) + 3_600_000).toISOString();
    expect(data.localTimes.departure.scheduled).toBe(`${at.slice(0, 19)}+01:00`);
    expect(data.flightDelay.disruption.rationale.join(' ')).toContain(
      `Asked by the UTC date ${f.flightDate} (as the API's flightDate is by default), this flight departs at ${at.slice(11, 16)} on ${at.slice(0, 10)} local time at ${f.origin} (UTC+01:00), the day after the date asked`,
    );
    // A flight whose local date is its UTC date carries no note.
    const same = flight('Europe/Madrid', '2026-02-20', false);
    expect(
      (
        await ask({ flightNumber: same.flightNumber, flightDate: same.flightDate })
      ).flightDelay.disruption.rationale.join(' '),
    ).not.toContain('Asked by the UTC date');
  });

  it('gives the evidence PDF of a flight asked by its local date, its record saying so', async () => {
    const f = flight('Europe/Madrid', '2026-02-20', true);
    const response = await t.get(
      `/api/v1/flights/evidence?flightNumber=${f.flightNumber}&flightDate=${localDate(f)}&dateBasis=local`,
      bearer(key),
    );
    expect(response.statusCode, response.body.slice(0, 200)).toBe(200);
    expect(response.headers['content-disposition']).toContain(`evidence-${f.flightNumber}-${localDate(f)}.pdf`);
    // The attached record (uncompressed in the file) is the answer: the date as asked, its basis, the local times.
    const pdf = response.rawPayload.toString('latin1');
    expect(pdf).toContain(`"dateBasis":"local"`);
    expect(pdf).toContain(`"flightDate":"${localDate(f)}"`);
    expect(pdf).toContain(`"scheduledDeparture":"${f.scheduledDeparture}"`);
    expect(pdf).toContain(`"timezone":"Europe/Madrid"`);
  });

  it("runs batch rows by the local date, from a dateBasis column or the upload's default, with the times UTC and local in the results CSV", async () => {
    const east = flight('Europe/Madrid', '2026-02-20', true);
    const west = flight('America/New_York', '2026-02-20', true);
    const rows = `flightNumber,flightDate,dateBasis,reference\r\n${east.flightNumber},${localDate(east)},local,E\r\n${west.flightNumber},${localDate(west)},,W\r\n${west.flightNumber},${west.flightDate},utc,U\r\n`;
    const post = (query: string) =>
      t.app.http.inject({
        method: 'POST',
        url: `/api/v1/batches${query}`,
        headers: { ...bearer(key), 'content-type': 'text/csv' },
        payload: rows,
      });
    expect((await post('?dateBasis=airport')).statusCode).toBe(400);
    const accepted = await post('?dateBasis=local');
    expect(accepted.statusCode, accepted.body).toBe(202);
    const done = await waitForBatch(t, key, json(accepted).data.id);
    const results = json(await t.get(`/api/v1/batches/${done.id}/results`, bearer(key))).data.results as Record<
      string,
      string | null
    >[];
    const byRef = Object.fromEntries(results.map((r) => [r.reference, r]));
    // The row's own basis wins; a row without one takes the upload's.
    expect(byRef.E).toMatchObject({
      dateBasis: 'local',
      flightDate: localDate(east),
      outcome: east.status,
      scheduledDeparture: east.scheduledDeparture,
      departureTimezone: 'Europe/Madrid',
    });
    expect(byRef.E!.scheduledDepartureLocal!.slice(0, 10)).toBe(localDate(east));
    expect(byRef.W).toMatchObject({
      dateBasis: 'local',
      scheduledDeparture: west.scheduledDeparture,
      departureTimezone: 'America/New_York',
    });
    expect(byRef.W!.scheduledDepartureLocal).toMatch(/-05:00$/);
    expect(byRef.U).toMatchObject({
      dateBasis: 'utc',
      flightDate: west.flightDate,
      scheduledDeparture: west.scheduledDeparture,
    });
    const csv = (await t.get(`/api/v1/batches/${done.id}/results`, { ...bearer(key), accept: 'text/csv' })).body.split(
      '\r\n',
    );
    const header = csv[0]!.split(',');
    const east_row = csv.find((l) => l.includes(',E,'))!.split(',');
    expect(east_row[header.indexOf('scheduledDepartureLocal')]).toBe(byRef.E!.scheduledDepartureLocal);
    expect(east_row[header.indexOf('dateBasis')]).toBe('local');
  });

  it('answers a number with no flight on the local date as not found, saying where the flights it found depart; refuses another basis', async () => {
    const f = flight('Europe/Madrid', '2026-02-20', true);
    // The flight of local 21 February departs late on 20 February UTC; asked with its origin for local 23 February's neighbour days only.
    const data = await ask({
      flightNumber: f.flightNumber,
      flightDate: localDate(f),
      dateBasis: 'local',
      origin: 'JFK',
    });
    expect(data).toMatchObject({ selected: null, flightDelay: null, dateBasis: 'local', flightDate: localDate(f) });
    expect(data.rationale.join(' ')).toContain(
      `No flight ${f.flightNumber} departs on ${localDate(f)} local time at its departure airport.`,
    );
    const bad = await t.get(
      `/api/v1/flights/status?flightNumber=${f.flightNumber}&flightDate=2026-02-20&dateBasis=airport`,
      bearer(key),
    );
    expect(bad.statusCode).toBe(400);
    expect(json(bad).message).toContain('dateBasis must be utc or local (got "airport")');
  });
});
