// The tax table and the treatment of each case (docs/billing.md, "Tax"): domestic, reverse charge,
// OSS consumer, outside the EU, and a seller without a VAT registration; rates by effective date;
// tax once on the total, half up, in minor units.
import { describe, expect, it } from 'vitest';
import { applyBuyerInput, checkVatId, countryName, EMPTY_BUYER } from './parties.js';
import { decideTax, ratePercent, standardRate, taxNote, taxOn } from './tax.js';
import { EU_VAT_PREFIXES } from '../config.js';
import { EU_VAT } from './vat-rates.js';

const at = Date.parse('2026-11-27T12:00:00Z');
const seller = { country: 'DE', vatId: 'DE136695976' };

describe('decideTax', () => {
  it('domestic: a buyer in the seller’s country pays the seller’s rate, business or not', () => {
    for (const vatId of [null, 'DE129273398']) {
      expect(decideTax(seller, { country: 'DE', vatId }, at)).toEqual({
        treatment: 'domestic',
        rateBp: 1900,
        country: 'DE',
      });
    }
  });

  it('domestic too when the buyer gave no country', () => {
    expect(decideTax(seller, { country: null, vatId: null }, at)).toMatchObject({
      treatment: 'domestic',
      rateBp: 1900,
    });
  });

  it('reverse charge: a business in another member state with a VAT id, 0 % and Article 196', () => {
    const d = decideTax(seller, { country: 'FR', vatId: 'FR40303265045' }, at);
    expect(d).toEqual({ treatment: 'reverse_charge', rateBp: 0, country: null });
    expect(taxNote(d.treatment, d.rateBp, d.country)).toBe(
      'Reverse charge: VAT to be accounted for by the recipient (Article 196 of Council Directive 2006/112/EC).',
    );
  });

  it('OSS: a consumer in another member state pays their country’s rate', () => {
    expect(decideTax(seller, { country: 'FI', vatId: null }, at)).toMatchObject({
      treatment: 'oss',
      rateBp: 2550,
      country: 'FI',
    });
    expect(decideTax(seller, { country: 'GR', vatId: null }, at)).toMatchObject({
      treatment: 'oss',
      rateBp: 2400,
      country: 'GR',
    });
    expect(taxNote('oss', 2700, 'HU')).toBe(
      'VAT at the standard rate of HU, 27 %, where the customer belongs (Article 58 of Council Directive 2006/112/EC; declared through the One-Stop Shop).',
    );
  });

  it('outside the EU: no EU VAT, business or consumer', () => {
    for (const buyer of [
      { country: 'US', vatId: null },
      { country: 'CH', vatId: 'CHE116281710MWST' },
      { country: 'GB', vatId: 'GB980780684' },
    ]) {
      expect(decideTax(seller, buyer, at)).toMatchObject({ treatment: 'outside_eu', rateBp: 0, country: null });
    }
    expect(taxNote('outside_eu', 0, null)).toContain('Outside the scope of EU VAT');
  });

  it('a seller without an EU VAT registration charges none', () => {
    for (const s of [
      { country: 'DE', vatId: null },
      { country: null, vatId: null },
      { country: 'US', vatId: '123456789' },
    ]) {
      expect(decideTax(s, { country: 'DE', vatId: null }, at)).toMatchObject({
        treatment: 'not_registered',
        rateBp: 0,
      });
    }
  });
});

describe('the rate table', () => {
  it('has the 27 member states, each with a rate from its effective date', () => {
    expect(EU_VAT).toHaveLength(27);
    expect(new Set(EU_VAT.map((c) => c.country)).size).toBe(27);
    // The VAT id check knows the same members (their prefixes).
    expect(Object.keys(EU_VAT_PREFIXES).sort()).toEqual(EU_VAT.map((c) => c.country).sort());
    for (const c of EU_VAT) {
      expect(c.rates[0]!.from).toBe('2024-01-01');
      expect(c.rates.map((r) => r.from)).toEqual([...c.rates.map((r) => r.from)].sort());
      for (const r of c.rates) {
        expect(r.bp).toBeGreaterThanOrEqual(1700);
        expect(r.bp).toBeLessThanOrEqual(2700);
      }
    }
  });

  it('takes the rate in force on the issue day (UTC)', () => {
    expect(standardRate('EE', Date.parse('2025-06-30T23:59:59Z'))).toBe(2200);
    expect(standardRate('EE', Date.parse('2025-07-01T00:00:00Z'))).toBe(2400);
    expect(standardRate('RO', Date.parse('2025-07-31T12:00:00Z'))).toBe(1900);
    expect(standardRate('RO', Date.parse('2025-08-01T00:00:00Z'))).toBe(2100);
    expect(standardRate('SK', Date.parse('2024-12-31T23:00:00Z'))).toBe(2000);
    expect(standardRate('SK', Date.parse('2025-01-01T00:00:00Z'))).toBe(2300);
    expect(standardRate('FI', Date.parse('2024-08-31T12:00:00Z'))).toBe(2400);
    expect(standardRate('FI', at)).toBe(2550);
    expect(standardRate('LU', at)).toBe(1700);
  });

  it('prints rates as people write them', () => {
    expect([1900, 2550, 0, 2100].map(ratePercent)).toEqual(['19', '25.5', '0', '21']);
  });
});

describe('taxOn', () => {
  it('computes once on the total, rounded half up, in minor units', () => {
    expect(taxOn(1234, 1900)).toBe(234); // 234.46
    expect(taxOn(50, 2100)).toBe(11); // 10.5 → 11
    expect(taxOn(150, 1700)).toBe(26); // 25.5 → 26
    expect(taxOn(1, 2550)).toBe(0); // 0.255
    expect(taxOn(2, 2500)).toBe(1); // 0.5 → 1
    expect(taxOn(0, 1900)).toBe(0);
    expect(taxOn(1234, 0)).toBe(0);
    // Per line would differ: three lines of 0.07 at 21 % are 1.47 cents each, 1 + 1 + 1 = 3; on the total, 21 × 21 % = 4.41 → 4.
    expect(taxOn(7, 2100) * 3).toBe(3);
    expect(taxOn(21, 2100)).toBe(4);
    expect(taxOn(99_999_999_999, 2700)).toBe(27_000_000_000); // 26,999,999,999.73, exactly (BigInt)
  });
});

describe('VAT ids and billing details', () => {
  it('accepts valid ids with their country, normalised', () => {
    expect(checkVatId('de 136 695 976', 'DE', 'vatId')).toEqual({ ok: true, value: 'DE136695976' });
    expect(checkVatId('EL094259216', 'GR', 'vatId')).toEqual({ ok: true, value: 'EL094259216' });
    expect(checkVatId('CHE-116.281.710 MWST', 'CH', 'vatId')).toEqual({ ok: true, value: 'CHE116281710MWST' });
    expect(checkVatId('12-3456789', 'US', 'vatId')).toEqual({ ok: true, value: '123456789' });
  });

  it('refuses a wrong check digit, a prefix of another country and an id without a country', () => {
    expect(checkVatId('DE136695977', 'DE', 'vatId')).toMatchObject({
      ok: false,
      message: expect.stringContaining('not a valid VAT id of Germany'),
    });
    expect(checkVatId('FR40303265045', 'DE', 'vatId')).toMatchObject({
      ok: false,
      message: expect.stringContaining('must start with DE'),
    });
    expect(checkVatId('GR094259216', 'GR', 'vatId')).toMatchObject({
      ok: false,
      message: expect.stringContaining('must start with EL'),
    });
    expect(checkVatId('DE136695976', null, 'vatId')).toMatchObject({
      ok: false,
      message: expect.stringContaining('needs a country'),
    });
    expect(checkVatId('<script>', 'DE', 'vatId')).toMatchObject({
      ok: false,
      message: expect.stringContaining('4 to 20 letters and digits'),
    });
  });

  it('knows countries by their ISO code only', () => {
    expect(countryName('DE')).toBe('Germany');
    for (const code of ['EU', 'ZZ', 'XX', 'de', 'DEU', '', 'EA', 'IC', 'AC'])
      expect(countryName(code), code).toBeNull();
    expect(countryName('XK')).toBe('Kosovo');
  });

  it('applies a change field by field, naming every problem, and checks the id against the country it ends with', () => {
    const set = applyBuyerInput(EMPTY_BUYER, {
      name: ' Acme SARL ',
      address: '12 rue de la Paix; 75002 Paris',
      country: 'fr',
      vatId: 'FR 40 303265045',
      email: 'Accounts@Acme.example',
    });
    expect(set).toEqual({
      ok: true,
      value: {
        name: 'Acme SARL',
        address: ['12 rue de la Paix', '75002 Paris'],
        country: 'FR',
        vatId: 'FR40303265045',
        email: 'accounts@acme.example',
      },
    });
    if (!set.ok) return;
    // Moving to Germany keeps the French id: refused, naming it.
    expect(applyBuyerInput(set.value, { country: 'DE' })).toMatchObject({
      ok: false,
      message: expect.stringContaining('billing.vatId must start with DE'),
    });
    expect(applyBuyerInput(set.value, { country: 'DE', vatId: null })).toMatchObject({
      ok: true,
      value: { country: 'DE', vatId: null, name: 'Acme SARL' },
    });
    const bad = applyBuyerInput(set.value, {
      country: 'Germany',
      email: 'nope',
      address: Array.from({ length: 7 }, (_, i) => `line ${i}`).join('\n'),
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      for (const field of ['billing.country', 'billing.email', 'billing.address']) expect(bad.message).toContain(field);
  });
});
