// A batch's rows as customers send them: JSON arrays, and CSV as spreadsheets and scripts export it.
import { describe, expect, it } from 'vitest';
import { MAX_BATCH_ROWS, rowsFromCsv, rowsFromJson, type RowsResult } from './rows.js';

const ok = (result: RowsResult) => {
  if (!result.ok) throw new Error(result.message);
  return result.value;
};

describe('batch rows from CSV', () => {
  it('reads the header, the query names and aliases in any case, and a reference', () => {
    const { rows, ignoredColumns } = ok(
      rowsFromCsv('Flight,DATE,from,To,reference\nw6 3101,2026-03-12,otp,ltn,CLM-1\nFR1,2026-03-12T07:15:00Z,,,\n'),
    );
    expect(ignoredColumns).toEqual([]);
    expect(rows[0]).toEqual({
      position: 1,
      reference: 'CLM-1',
      error: null,
      query: expect.objectContaining({
        flightNumber: 'W6 3101',
        designator: 'W63101',
        flightDate: '2026-03-12',
        origin: 'OTP',
        destination: 'LTN',
      }),
    });
    expect(rows[1]).toMatchObject({
      position: 2,
      reference: null,
      error: null,
      query: { flightNumber: 'FR1', flightDate: '2026-03-12', origin: null, destination: null },
    });
  });

  it('takes a byte-order mark, CRLF, quoted fields with commas, quotes and newlines, and lists the columns it ignores', () => {
    const text =
      '\uFEFFflightNumber,flightDate,reference,Passenger,Notes\r\nW63101,2026-03-12,"Smith, J. ""Jr""","Jane\r\nDoe",x\r\n\r\nLH1,2026-03-13,,,\r\n';
    const { rows, ignoredColumns } = ok(rowsFromCsv(text));
    expect(ignoredColumns).toEqual(['Passenger', 'Notes']);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ reference: 'Smith, J. "Jr"', query: { flightNumber: 'W63101' } });
    expect(rows[1]).toMatchObject({ position: 2, query: { flightNumber: 'LH1', flightDate: '2026-03-13' } });
  });

  it('refuses the date formats spreadsheets write, saying how to export them, and names each row’s problems', () => {
    const { rows } = ok(
      rowsFromCsv(
        'flightNumber,flightDate\nW63101,12/03/2026\nW63101,46093\nW63101,2026-02-30\n,2026-03-12\nW63101,2026-03-12\n',
      ),
    );
    expect(rows[0]!.error).toContain("spreadsheet's date format");
    expect(rows[0]!.error).toContain('YYYY-MM-DD');
    expect(rows[0]!.error).not.toContain('flightDate is required');
    expect(rows[1]!.error).toContain("spreadsheet's day number");
    expect(rows[2]!.error).toContain('not a calendar date');
    expect(rows[3]!.error).toContain('flightNumber is required');
    expect(rows.map((r) => r.query === null)).toEqual([true, true, true, true, false]);
  });

  it('refuses a reference with control or bidirectional characters, as a name (PostgreSQL cannot store a NUL)', () => {
    const { rows } = ok(
      rowsFromCsv(
        'flightNumber,flightDate,reference\nW63101,2026-03-12,"a\u0000b"\nW63101,2026-03-12,"x\u001b[31m"\nW63101,2026-03-12,"evil\u202emoc"\nW63101,2026-03-12,Müller ✈\n',
      ),
    );
    expect(rows.map((r) => r.error)).toEqual([
      'reference must not contain control characters',
      'reference must not contain control characters',
      expect.stringContaining('reference must not contain bidirectional control characters (U+202E'),
      null,
    ]);
    const json = rowsFromJson([{ flightNumber: 'W63101', flightDate: '2026-03-12', reference: 'a\u0000' }]);
    expect(json.ok && json.value.rows[0]!.error).toBe('reference must not contain control characters');
  });

  it('refuses a file it cannot use as a whole, saying why', () => {
    const refused = (text: string) => {
      const result = rowsFromCsv(text);
      return result.ok ? null : result.message;
    };
    expect(refused('')).toContain('empty');
    expect(refused('flight,origin\nW63101,OTP\n')).toContain('must name flightDate');
    expect(refused('flightNumber,flight,flightDate\nW6,W6,2026-03-12\n')).toContain('flightNumber more than once');
    expect(refused('flightNumber,flightDate\n"W63101,2026-03-12\n')).toContain('could not be read');
    expect(refused('flightNumber,flightDate\n')).toContain('no rows');
    expect(refused(`flightNumber,flightDate\n${'W63101,2026-03-12\n'.repeat(MAX_BATCH_ROWS + 1)}`)).toContain(
      `at most ${MAX_BATCH_ROWS.toLocaleString('en')}`,
    );
  });
});

describe('batch rows from JSON', () => {
  it('takes an array of objects with the query names, aliases and a reference', () => {
    const { rows } = ok(
      rowsFromJson([
        { flightNumber: 'W63101', flightDate: '2026-03-12', reference: 'A' },
        { flight: 'FR1', date: '2026-03-12', dest: 'ltn' },
      ]),
    );
    expect(rows[0]).toMatchObject({ reference: 'A', query: { designator: 'W63101' } });
    expect(rows[1]).toMatchObject({ reference: null, query: { flightNumber: 'FR1', destination: 'LTN' } });
  });

  it('ignores what a row does not use, as a CSV column would be: a batch row never refreshes or renders', () => {
    const { rows } = ok(
      rowsFromJson([
        { flightNumber: 'W63101', flightDate: '2026-03-12', refresh: '1', screenshot: 'yes', passenger: { name: 'J' } },
      ]),
    );
    expect(rows[0]).toMatchObject({ error: null, query: { designator: 'W63101', refresh: false, screenshot: false } });
  });

  it('names what is wrong with each bad row, and refuses what is not an array', () => {
    const { rows } = ok(
      rowsFromJson([
        null,
        { flightNumber: 5, flightDate: '2026-03-12' },
        { flightNumber: ['W6'], flightDate: '2026-03-12' },
        { flightNumber: 'W63101', flightDate: '2026-03-12', reference: 'x'.repeat(201) },
      ]),
    );
    expect(rows[0]!.error).toContain('must be an object');
    expect(rows[1]!.error).toContain('flightNumber must be 2 to 12 characters');
    expect(rows[2]!.error).toContain('flightNumber must be a string');
    expect(rows[3]!.error).toContain('reference must be at most 200 characters');
    expect(rowsFromJson({ rows: [] })).toMatchObject({ ok: false, message: expect.stringContaining('JSON array') });
    expect(rowsFromJson([])).toMatchObject({ ok: false, message: expect.stringContaining('no rows') });
  });
});
