// GET /api/v1/compensation through HTTP: a key required, no credit taken, every field checked by
// name, and the same assessment on a settled flight lookup.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { groundTruth } from '../src/sim/index.js';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';

describeEachDatabase('the compensation assessment', (kind) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp(kind);
    key = (await t.account({ plan: { included: 5 } })).key;
  });
  afterAll(() => t.close());

  it('assesses a route and an outcome without taking a credit', async () => {
    const response = await t.get(
      '/api/v1/compensation?origin=otp&destination=LTN&airline=w6&outcome=delayed&arrivalDelayMinutes=200',
      bearer(key),
    );
    expect(response.statusCode).toBe(200);
    expect(json(response).data).toMatchObject({
      eu261: { applies: true, amountEur: 400, band: 'medium', reduced: false },
      uk261: { applies: true, amountGbp: 350, band: 'medium', reduced: false },
      distanceKm: expect.any(Number),
    });
    expect(response.headers['x-credits-used']).toBe('0');
    const basel = json(
      await t.get('/api/v1/compensation?origin=EAP&destination=RMO&airline=W6&outcome=cancelled', bearer(key)),
    ).data;
    expect(basel.eu261.amountEur).toBe(400);
    expect(basel.deadlines).toBeUndefined();
  });

  it('gives the claim deadlines of the countries connected to the flight, with a flight date', async () => {
    const data = json(
      await t.get(
        '/api/v1/compensation?origin=OTP&destination=LTN&airline=W6&outcome=cancelled&flightDate=2026-02-20',
        bearer(key),
      ),
    ).data;
    // Bucharest (RO), Luton (GB), Wizz Air (licensed in HU): soonest first.
    expect(
      data.deadlines.map((d: { country: string; connections: string[]; runsOutOn: string }) => [
        d.country,
        d.connections,
        d.runsOutOn,
      ]),
    ).toEqual([
      ['RO', ['departure'], '2029-02-20'],
      ['HU', ['carrier'], '2031-02-20'],
      ['GB', ['arrival'], '2032-02-20'],
    ]);
    expect(data.deadlines[0].sources.length).toBeGreaterThan(0);
  });

  it('measures a diversion to an airport of the same city on the final arrival delay, and one elsewhere as a cancellation', async () => {
    const ask = async (query: string) => {
      const response = await t.get(
        `/api/v1/compensation?origin=OTP&destination=FCO&airline=RO&outcome=diverted&${query}`,
        bearer(key),
      );
      expect(response.statusCode, query).toBe(200);
      return json(response).data;
    };
    // Ciampino serves Rome: a delay, owed from 3 hours at the passenger's final arrival at Fiumicino.
    const under = await ask('divertedTo=CIA&arrivalDelayMinutes=179');
    expect(under.eu261).toMatchObject({ applies: true, amountEur: null, band: 'short' });
    expect(under.rationale.join(' ')).toMatch(/CIA, which serves the same city or region as FCO \(Rome\)/);
    expect((await ask('divertedTo=cia&arrivalDelayMinutes=180')).eu261).toMatchObject({
      amountEur: 250,
      reduced: false,
    });
    // Naples does not serve Rome: a cancellation, whatever the delay.
    const naples = await ask('divertedTo=NAP&arrivalDelayMinutes=179');
    expect(naples.eu261.amountEur).toBe(250);
    expect(naples.rationale.join(' ')).toMatch(/does not serve FCO's city or region: treated as a cancellation/);
    // A long-haul diversion within London, 3 h 20 at the final arrival: halved under Art. 7(2).
    const london = json(
      await t.get(
        '/api/v1/compensation?origin=JFK&destination=LHR&airline=BA&outcome=diverted&divertedTo=LGW&arrivalDelayMinutes=200',
        bearer(key),
      ),
    ).data;
    expect(london.uk261).toMatchObject({ applies: true, amountGbp: 260, reduced: true, band: 'long' });
    const unknown = await t.get(
      '/api/v1/compensation?origin=OTP&destination=FCO&airline=RO&outcome=diverted&divertedTo=ZZZ',
      bearer(key),
    );
    expect(unknown.statusCode).toBe(400);
    expect(json(unknown)).toMatchObject({
      success: false,
      code: 'invalid_request',
      message: expect.stringMatching(/unknown airport ZZZ \(divertedTo/),
    });
  });

  it('names each bad field, and needs a key', async () => {
    const cases: [string, RegExp][] = [
      [
        'origin=OT&destination=LTN&airline=W6&outcome=delayed',
        /origin must be a 3-letter IATA airport code \(got "OT"\)/,
      ],
      ['destination=LTN&airline=W6&outcome=delayed', /origin is required/],
      [
        'origin=OTP&destination=LTN&airline=W6&outcome=late',
        /outcome must be one of delayed, cancelled, diverted \(got "late"\)/,
      ],
      ['origin=OTP&destination=LTN&outcome=delayed', /airline is required/],
      [
        'origin=OTP&destination=LTN&airline=W6&outcome=delayed&arrivalDelayMinutes=3h',
        /arrivalDelayMinutes must be a whole number/,
      ],
      ['origin=OTP&destination=ZZZ&airline=W6&outcome=delayed', /unknown airport ZZZ/],
      ['origin=OTP&destination=LTN&airline=W6&outcome=delayed&price=5', /unknown parameter "price"/],
      [
        'origin=OTP&destination=LTN&airline=W6&outcome=delayed&flightDate=2026-02-30',
        /flightDate is not a calendar date \(got "2026-02-30"\)/,
      ],
      [
        'origin=OTP&destination=LTN&airline=W6&outcome=delayed&flightDate=2026-13-01',
        /flightDate is not a calendar date \(got "2026-13-01"\)/,
      ],
      [
        'origin=OTP&destination=LTN&airline=W6&outcome=delayed&flightDate=26-02-20',
        /flightDate must be a date as YYYY-MM-DD \(got "26-02-20"\)/,
      ],
    ];
    for (const [query, message] of cases) {
      const response = await t.get(`/api/v1/compensation?${query}`, bearer(key));
      expect(response.statusCode, query).toBe(400);
      expect(json(response)).toMatchObject({
        success: false,
        code: 'invalid_request',
        message: expect.stringMatching(message),
      });
    }
    expect(
      (await t.get('/api/v1/compensation?origin=OTP&destination=LTN&airline=W6&outcome=cancelled')).statusCode,
    ).toBe(401);
  });

  it('is attached to every settled flight lookup, as the endpoint gives it', async () => {
    // A cancelled departure from an EU airport: EU261 covers it whatever the carrier.
    const truth = ['2026-02-20', '2026-02-19', '2026-02-18']
      .flatMap((date) => groundTruth(t.app.sim!, date, { status: 'cancelled', operation: 'passenger', airport: 'OTP' }))
      .find((f) => f.origin === 'OTP')!;
    const data = json(
      await t.get(
        `/api/v1/flights/status?flightNumber=${truth.flightNumber}&flightDate=${truth.flightDate}&origin=${truth.origin}`,
        bearer(key),
      ),
    ).data;
    expect(data.selected.complete).toBe(true);
    // The operating carrier is the callsign's: the same question asked of the endpoint.
    const asked = json(
      await t.get(
        `/api/v1/compensation?origin=${truth.origin}&destination=${truth.destination}&airline=${truth.callsign.slice(0, 3)}&outcome=cancelled&flightDate=${truth.flightDate}`,
        bearer(key),
      ),
    ).data;
    // The lookup adds what its circumstances mean for the amount: when the cancellation was first seen
    // (here not: no board was watched), whether the amount is at risk, and why.
    const { amountAtRisk, rationale, ...rest } = data.compensation;
    const { rationale: askedRationale, ...askedRest } = asked;
    expect(rest).toEqual(askedRest);
    expect(rationale.slice(0, -2)).toEqual(askedRationale);
    expect(rationale.at(-2)).toMatch(/^When the cancellation was announced is not known/);
    expect(rationale.at(-1)).toMatch(/extraordinary|at risk/);
    expect(amountAtRisk).toBe(
      data.circumstances.assessment === 'unknown'
        ? null
        : ['likely_extraordinary', 'possibly_extraordinary'].includes(data.circumstances.assessment),
    );
    expect(data.compensation.eu261).toMatchObject({ applies: true, amountEur: expect.any(Number) });
    const airborne = json(
      await t.get('/api/v1/flights/status?flightNumber=ZZ9999&flightDate=2026-02-20', bearer(key)),
    ).data;
    expect(airborne.compensation).toBeNull();
  });
});
