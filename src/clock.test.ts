// The one reading of dates and instants from outside: days the calendar has, and nothing else,
// without ever throwing or rolling a day over into the next month.
import { describe, expect, it } from 'vitest';
import { dayProblem, FLIGHT_YEARS, parseInstant, readDay } from './clock.js';

describe('readDay', () => {
  it.each([
    ['2026-02-20', Date.UTC(2026, 1, 20)],
    ['2024-02-29', Date.UTC(2024, 1, 29)],
    ['2000-02-29', Date.UTC(2000, 1, 29)],
    ['1970-01-01', 0],
    ['9999-12-31', Date.UTC(9999, 11, 31)],
    ['2026-04-30', Date.UTC(2026, 3, 30)],
    ['2026-12-31', Date.UTC(2026, 11, 31)],
  ])('reads %s', (text, at) => {
    expect(readDay(text)).toEqual({ ok: true, day: text, at });
  });

  it.each([
    ['2026-13-01', 'calendar'],
    ['2026-00-10', 'calendar'],
    ['2026-01-00', 'calendar'],
    ['2026-01-32', 'calendar'],
    ['2026-02-30', 'calendar'],
    ['2026-02-29', 'calendar'],
    ['1900-02-29', 'calendar'],
    ['2026-04-31', 'calendar'],
    ['9999-99-99', 'calendar'],
    ['0000-00-00', 'calendar'],
    ['0000-01-01', 'year'],
    ['1969-12-31', 'year'],
    ['0099-06-01', 'year'],
    ['275760-09-13', 'shape'],
    ['+275760-09-13', 'shape'],
    ['-000001-01-01', 'shape'],
    ['2026-1-01', 'shape'],
    ['2026-02-20T00:00:00Z', 'shape'],
    [' 2026-02-20', 'shape'],
    ['２０２６-02-20', 'shape'],
    ['', 'shape'],
  ] as const)('refuses %s (%s), without throwing', (text, problem) => {
    expect(readDay(text)).toEqual({ ok: false, problem });
  });

  it('takes the years it is given', () => {
    expect(readDay('2100-01-01', FLIGHT_YEARS)).toEqual({ ok: false, problem: 'year' });
    expect(readDay('2099-12-31', FLIGHT_YEARS).ok).toBe(true);
  });

  it('says what is wrong, naming the field and quoting the value cut short', () => {
    expect(dayProblem('flightDate', '2026-13-01', 'calendar')).toBe(
      'flightDate is not a calendar date (got "2026-13-01")',
    );
    expect(dayProblem('query.from', 'soon', 'shape')).toBe('query.from must be a date as YYYY-MM-DD (got "soon")');
    expect(dayProblem('flightDate', '1969-12-31', 'year', FLIGHT_YEARS)).toBe(
      'flightDate must be between 1970 and 2099 (got "1969-12-31")',
    );
    expect(dayProblem('x', 'y'.repeat(100), 'shape')).toContain(`"${'y'.repeat(40)}…"`);
  });
});

describe('parseInstant', () => {
  it.each([
    ['2026-03-01', Date.UTC(2026, 2, 1)],
    ['2026-03-01T06:00Z', Date.UTC(2026, 2, 1, 6)],
    ['2026-03-01T06:00:30Z', Date.UTC(2026, 2, 1, 6, 0, 30)],
    ['2026-03-01T06:00:30.250Z', Date.UTC(2026, 2, 1, 6, 0, 30, 250)],
    ['2026-03-01T06:00:00+02:00', Date.UTC(2026, 2, 1, 4)],
    ['2026-03-01T00:30:00+05:30', Date.UTC(2026, 1, 28, 19)],
    ['2024-02-29T23:59:59-12:00', Date.UTC(2024, 2, 1, 11, 59, 59)],
  ])('reads %s', (text, at) => {
    expect(parseInstant(text)).toBe(at);
  });

  it.each([
    '2026-13-01',
    '2026-02-30',
    '2026-02-29',
    '0000-01-01',
    '9999-99-99',
    '2026-13-01T10:00:00Z',
    '2026-02-30T06:00:00Z',
    '2026-03-01T24:00:00Z',
    '2026-03-01T25:00:00Z',
    '2026-03-01T10:60:00Z',
    '2026-03-01T10:00:60Z',
    '2026-03-01T10:00:00+25:00',
    '2026-03-01T10:00:00+05:60',
    '9999-99-99T99:99:99Z',
    '0000-01-01T00:00:00Z',
    '2026-03-01T06:00:00', // no zone
    '2026-03-01T06Z',
    '+275760-09-13T00:00:00Z',
    'tomorrow',
    '',
  ])('refuses %s, without throwing', (text) => {
    expect(parseInstant(text)).toBeNull();
  });
});
