import { describe, expect, it } from 'vitest';
import { isDesignator, parseFlightQuery } from './query.js';

const base = { flightNumber: 'W63101', flightDate: '2026-02-20' };

function accepted(raw: Record<string, string | string[]>) {
  const result = parseFlightQuery(raw);
  if (!result.ok) throw new Error(`expected ok, got: ${result.message}`);
  return result.query;
}

function rejected(raw: Record<string, string | string[]>): string {
  const result = parseFlightQuery(raw);
  if (result.ok) throw new Error(`expected a problem, got ${JSON.stringify(result.query)}`);
  return result.message;
}

describe('flightNumber', () => {
  it.each([
    [{ flightNumber: 'w63101' }, 'W63101', 'W63101'],
    [{ flight: '  w6 3101 ' }, 'W6 3101', 'W63101'],
    [{ number: 'ba1' }, 'BA1', 'BA1'],
    [{ flightNumber: 'BA1' }, 'BA1', 'BA1'],
    [{ flightNumber: 'U2 1234A' }, 'U2 1234A', 'U21234A'],
    [{ flightNumber: '9W12' }, '9W12', '9W12'],
    [{ flightNumber: 'EZY8301' }, 'EZY8301', 'EZY8301'],
    [{ flightNumber: 'W63101', flight: 'W63101' }, 'W63101', 'W63101'],
  ])('%j → %s', (raw, flightNumber, designator) => {
    const query = accepted({ flightDate: '2026-02-20', ...raw });
    expect(query.flightNumber).toBe(flightNumber);
    expect(query.designator).toBe(designator);
  });

  it.each([
    [{}, /flightNumber is required \(aliases: flight, number\)/],
    [{ flightNumber: '' }, /flightNumber must be 2 to 12 characters/],
    [{ flightNumber: '   ' }, /flightNumber must be 2 to 12 characters/],
    [{ flightNumber: 'A' }, /flightNumber must be 2 to 12 characters after trimming \(got 1\)/],
    [{ flightNumber: 'ABCDEFGHIJKLM' }, /flightNumber must be 2 to 12 characters/],
    [
      { flightNumber: 'W6-3101' },
      /flightNumber must be letters and digits, with a space only after the airline code, e\.g\. W63101 or W6 3101 \(got "W6-3101"\)/,
    ],
    [{ flightNumber: "W6'; DROP" }, /flightNumber must be letters and digits/],
    [{ flightNumber: '<script>' }, /flightNumber must be letters and digits/],
    [{ flightNumber: 'W6  3101' }, /flightNumber must be letters and digits/],
    [
      { flightNumber: 'hello world' },
      /flightNumber must be letters and digits, with a space only after the airline code, .* \(got "hello world"\)/,
    ],
    [{ flightNumber: 'W6 31 01' }, /flightNumber must be letters and digits/],
    [{ flightNumber: 'W 63101' }, /flightNumber must be letters and digits/],
    [{ flightNumber: 'W6\t3101' }, /flightNumber must be letters and digits/],
    [
      { flightNumber: 'W63101', flight: 'FR1' },
      /flightNumber was given more than once with different values \(flightNumber, flight\)/,
    ],
    [{ flightNumber: ['W63101', 'FR1'] }, /flightNumber was given more than once/],
  ])('%j is refused', (raw, message) => {
    expect(rejected({ flightDate: '2026-02-20', ...raw })).toMatch(message);
  });

  // Spec 4.1's limits: a string of 2 to 12 characters. These are requests the lookup answers "not found"
  // without asking a provider (lookup.ts), not 400s.
  it.each([['ZZ'], ['zz9999999999'], ['AB'], ['W612345'], ['12345'], ['ABCDEFGHIJKL'], ['EZY 83011234']])(
    '%s is a request, though no designator',
    (value) => {
      const query = accepted({ flightDate: '2026-02-20', flightNumber: value });
      expect(query.flightNumber).toBe(value.toUpperCase());
      expect(isDesignator(query.designator)).toBe(false);
    },
  );
});

describe('flightDate', () => {
  it.each([
    ['2026-02-20', '2026-02-20'],
    [' 2026-02-20 ', '2026-02-20'],
    ['2024-02-29', '2024-02-29'],
    ['2026-02-20T07:15:00Z', '2026-02-20'],
    ['2026-02-20T23:59:59.999Z', '2026-02-20'],
    ['2026-02-20T23:30:00-05:00', '2026-02-20'],
    ['2026-02-20T07:15+0100', '2026-02-20'],
    ['2026-02-20T07:15', '2026-02-20'],
  ])('%s → %s', (value, date) => {
    expect(accepted({ flightNumber: 'W63101', flightDate: value }).flightDate).toBe(date);
  });

  it('accepts the alias date', () => {
    expect(accepted({ flightNumber: 'W63101', date: '2026-03-01' }).flightDate).toBe('2026-03-01');
  });

  it.each([
    [undefined, /flightDate is required \(aliases: date\)/],
    ['', /flightDate must be a date as YYYY-MM-DD/],
    ['20-02-2026', /flightDate must be a date as YYYY-MM-DD/],
    ['2026-2-20', /flightDate must be a date as YYYY-MM-DD/],
    ['2026/02/20', /flightDate must be a date as YYYY-MM-DD/],
    ['20260220', /flightDate must be a date as YYYY-MM-DD/],
    ['2026-02-20 07:15', /flightDate must be a date as YYYY-MM-DD/],
    ['2026-02-30', /flightDate is not a calendar date/],
    ['2025-02-29', /flightDate is not a calendar date/],
    ['2026-13-01', /flightDate is not a calendar date/],
    ['2026-02-20T25:00:00Z', /flightDate has an invalid time part/],
    ['2026-02-20Tnoon', /flightDate must be a date/],
    ['1969-12-31', /flightDate must be between 1970 and 2099/],
    ['yesterday', /flightDate must be a date/],
  ])('%s is refused', (value, message) => {
    const raw: Record<string, string> = { flightNumber: 'W63101' };
    if (value !== undefined) raw.flightDate = value;
    expect(rejected(raw)).toMatch(message);
  });
});

describe('origin and destination', () => {
  it.each([
    [{ origin: 'otp' }, 'OTP', null],
    [{ originIata: 'Otp' }, 'OTP', null],
    [{ from: 'OTP', to: 'ltn' }, 'OTP', 'LTN'],
    [{ destination: 'LTN' }, null, 'LTN'],
    [{ destinationIata: 'ltn' }, null, 'LTN'],
    [{ dest: 'ltn' }, null, 'LTN'],
  ])('%j', (raw, origin, destination) => {
    const query = accepted({ ...base, ...raw });
    expect(query.origin).toBe(origin);
    expect(query.destination).toBe(destination);
  });

  it.each([
    [{ origin: 'OT' }, /origin must be a 3-letter IATA airport code \(got "OT"\)/],
    [{ origin: 'OTPX' }, /origin must be a 3-letter/],
    [{ origin: 'O1P' }, /origin must be a 3-letter/],
    [{ origin: '' }, /origin must be a 3-letter/],
    [{ to: 'LUTON' }, /destination must be a 3-letter IATA airport code \(got "LUTON"\)/],
    [{ from: 'OTP', origin: 'CLJ' }, /origin was given more than once/],
  ])('%j is refused', (raw, message) => {
    expect(rejected({ ...base, ...raw })).toMatch(message);
  });
});

describe('flags', () => {
  it.each([
    ['1', true],
    ['true', true],
    ['yes', true],
    ['0', false],
    ['false', false],
    ['no', false],
  ])('refresh=%s → %s, screenshot and includeScreenshot too', (value, expected) => {
    expect(accepted({ ...base, refresh: value }).refresh).toBe(expected);
    expect(accepted({ ...base, screenshot: value }).screenshot).toBe(expected);
    expect(accepted({ ...base, includeScreenshot: value }).screenshot).toBe(expected);
  });

  it('default to false', () => {
    const query = accepted(base);
    expect(query.refresh).toBe(false);
    expect(query.screenshot).toBe(false);
  });

  it.each(['', 'TRUE', 'Yes', 'on', 'off', '2', 'y', ' 1'])('refresh=%j is refused', (value) => {
    expect(rejected({ ...base, refresh: value })).toMatch(/refresh must be one of 1, 0, true, false, yes, no/);
  });

  it('names screenshot when includeScreenshot is wrong', () => {
    expect(rejected({ ...base, includeScreenshot: 'maybe' })).toMatch(/^Invalid query: screenshot must be one of/);
  });
});

it('reports every problem, each with its field, and ignores unknown parameters', () => {
  const message = rejected({ flightNumber: 'X', origin: '12', refresh: 'maybe', colour: 'blue' });
  expect(message).toBe(
    'Invalid query: flightNumber must be 2 to 12 characters after trimming (got 1); flightDate is required (aliases: date); ' +
      'origin must be a 3-letter IATA airport code (got "12"); refresh must be one of 1, 0, true, false, yes, no (got "maybe")',
  );
});

it('cuts long hostile values short in messages', () => {
  const message = rejected({ ...base, origin: 'x'.repeat(5000) });
  expect(message.length).toBeLessThan(200);
});
