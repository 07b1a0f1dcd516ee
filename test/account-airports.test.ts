// GET /api/v1/account and GET /api/v1/airports: shapes, facts, and that neither costs a credit.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, STATUS_URL, type TestApp } from './helpers/app.js';

const CATALOGUE =
  'OTP CLJ RMO TIA BUD MLA BCM VIE CDG LTN VCE BCN CPH BHX FCO ATH MAN ORY WRO BSL BLQ ALC LGW MXP BRI NAP MAD VLC ARN BGY NCE SKP LIS CRL CTA AGP BTS KRK KTW BRU LCA WAW CPO HRK LPL OSL WMI LBA POZ PSA CIA STN'.split(
    ' ',
  );

describeEachDatabase('account and airports', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(async () => t?.close());

  it('GET /api/v1/account describes the key and account, with credits, without taking one', async () => {
    const { key, accountId, keyId, slug } = await t.account({ plan: { included: 50 } });
    await t.get(STATUS_URL, bearer(key));
    await t.get(STATUS_URL, bearer(key));
    for (let i = 0; i < 3; i++) {
      const response = await t.get('/api/v1/account', bearer(key));
      expect(response.statusCode).toBe(200);
      expect(json(response)).toEqual({
        success: true,
        data: {
          accountId,
          accountSlug: slug,
          keyId,
          keyName: 'test',
          keyPrefix: key.slice(0, 12),
          unlimited: false,
          requestCount: 2,
          plan: null, // a custom allowance, not a catalogue plan
          credits: { included: 50, used: 2, remaining: 48, overage: 0, periodEnd: expect.any(String) },
        },
      });
      expect(response.headers['x-credits-used']).toBe('2');
      expect(response.headers['x-credits-period-end']).toBe(json(response).data.credits.periodEnd);
    }
  });

  it('requestCount is the lifetime count of metered requests, equal to the usage log', async () => {
    const { key, accountId } = await t.account({ plan: { included: 5 } });
    for (let i = 0; i < 7; i++) await t.get(i % 2 ? STATUS_URL : '/api/v1/flights/status?flightNumber=x', bearer(key));
    const rows = await t.app.db.kysely
      .selectFrom('usage_log')
      .select('status')
      .where('account_id', '=', accountId)
      .execute();
    expect(rows).toHaveLength(5);
    expect(json(await t.get('/api/v1/account', bearer(key))).data.requestCount).toBe(5);
  });

  it('GET /api/v1/airports lists the 52 catalogue airports with every field, sorted by code', async () => {
    const { key } = await t.account();
    const response = await t.get('/api/v1/airports', bearer(key));
    expect(response.statusCode).toBe(200);
    const body = json(response);
    expect(body.success).toBe(true);
    expect(body.data.count).toBe(52);
    const codes = body.data.airports.map((a: { iata: string }) => a.iata);
    expect(codes).toEqual([...CATALOGUE].sort());
    for (const airport of body.data.airports) {
      expect(Object.keys(airport).sort()).toEqual([
        'aliases',
        'boards',
        'city',
        'country',
        'countryCode',
        'iata',
        'name',
        'timezone',
      ]);
      expect(airport.iata).toMatch(/^[A-Z]{3}$/);
      expect(airport.countryCode).toMatch(/^[A-Z]{2}$/);
      expect(airport.name.length).toBeGreaterThan(5);
      expect(airport.city.length).toBeGreaterThan(1);
      expect(airport.boards).toEqual(['departures', 'arrivals']);
      expect(() => new Intl.DateTimeFormat('en', { timeZone: airport.timezone })).not.toThrow();
      expect(airport.country).toBe(new Intl.DisplayNames(['en'], { type: 'region' }).of(airport.countryCode));
    }
    const byCode = Object.fromEntries(body.data.airports.map((a: { iata: string }) => [a.iata, a]));
    expect(byCode.RMO).toMatchObject({
      aliases: ['KIV'],
      city: 'Chișinău',
      countryCode: 'MD',
      timezone: 'Europe/Chisinau',
    });
    expect(byCode.BSL).toMatchObject({
      aliases: ['MLH', 'EAP'],
      countryCode: 'FR',
      timezone: 'Europe/Paris',
      city: 'Basel',
    });
    expect(byCode.OTP).toMatchObject({
      name: 'Bucharest Henri Coandă International Airport',
      city: 'Bucharest',
      country: 'Romania',
    });
    expect(byCode.LTN).toMatchObject({
      city: 'London',
      countryCode: 'GB',
      country: 'United Kingdom',
      timezone: 'Europe/London',
    });
    expect(byCode.HRK).toMatchObject({ countryCode: 'UA', timezone: 'Europe/Kyiv' });
    expect(byCode.CPO).toMatchObject({
      countryCode: 'CL',
      timezone: 'America/Santiago',
      name: 'Desierto de Atacama Airport',
    });
    expect(byCode.SKP).toMatchObject({ country: 'North Macedonia' });
    expect(byCode.LCA).toMatchObject({ timezone: 'Asia/Nicosia' });
    const others = body.data.airports.filter((a: { iata: string }) => a.iata !== 'RMO' && a.iata !== 'BSL');
    expect(others.every((a: { aliases: string[] }) => a.aliases.length === 0)).toBe(true);
    expect(response.headers['x-credits-used']).toBe('0');
  });

  it('resolves aliases in the catalogue service', () => {
    expect(t.app.catalogue.find('kiv')?.iata).toBe('RMO');
    expect(t.app.catalogue.find('MLH')?.iata).toBe('BSL');
    expect(t.app.catalogue.find('EAP')?.iata).toBe('BSL');
    expect(t.app.catalogue.find('LHR')).toBeUndefined();
  });
});
