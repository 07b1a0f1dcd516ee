// The shapes a watch request may take (input.ts), without a service: one object, an array, a CSV, and
// the endpoints each row gets.
import { describe, expect, it } from 'vitest';
import { endpointsParameter, watchesFromCsv, watchesFromJson } from './input.js';

describe('watch requests', () => {
  it('reads one object as one watch, and an array as many, a row taking the request endpoints when it names none', () => {
    const one = watchesFromJson({ flightNumber: 'w6 3101', flightDate: '2026-02-20', endpoints: ['wh_a', 'wh_a'] }, {});
    expect(one).toMatchObject({ ok: true, value: { single: true } });
    expect(one.ok && one.value.rows[0]).toMatchObject({
      endpoints: ['wh_a'],
      error: null,
      query: { designator: 'W63101' },
    });

    const many = watchesFromJson(
      [
        { flightNumber: 'W63101', flightDate: '2026-02-20' },
        { flightNumber: 'W63102', flightDate: '2026-02-20', endpoints: ['wh_b'] },
      ],
      { endpoints: endpointsParameter(' wh_a, ,wh_c ') },
    );
    expect(many.ok && many.value.rows.map((r) => r.endpoints)).toEqual([['wh_a', 'wh_c'], ['wh_b']]);
  });

  it('names what a row lacks, and refuses what is not a watch request', () => {
    const rows = watchesFromJson(
      [
        { flightNumber: 'W63101', flightDate: '2026-02-20' },
        { flightNumber: 'W63101', flightDate: '2026-02-30', endpoints: [1] },
      ],
      {},
    );
    expect(rows.ok && rows.value.rows.map((r) => r.error)).toEqual([
      'endpoints is required: the ids of the webhook endpoints to send to',
      expect.stringMatching(/flightDate .*; endpoints must be an array of webhook endpoint ids/),
    ]);
    expect(watchesFromJson('W63101', {})).toMatchObject({ ok: false, message: expect.stringMatching(/one watch/) });
    expect(watchesFromJson({ watches: [] }, {})).toMatchObject({
      ok: false,
      message: expect.stringMatching(/one watch/),
    });
    expect(watchesFromJson([], {})).toEqual({ ok: false, message: 'The request has no rows' });
  });

  it('reads a CSV as a batch, its endpoints from the request, and refuses an endpoints column', () => {
    const csv = watchesFromCsv('flightNumber,flightDate,note\r\nW63101,2026-02-20,x\r\n', { endpoints: ['wh_a'] });
    expect(csv).toMatchObject({ ok: true, value: { single: false, ignoredColumns: ['note'] } });
    expect(csv.ok && csv.value.rows[0]!.endpoints).toEqual(['wh_a']);
    expect(watchesFromCsv('flightNumber,flightDate,Endpoints\r\nW63101,2026-02-20,wh_a\r\n', {})).toMatchObject({
      ok: false,
      message: expect.stringMatching(/endpoints query parameter/),
    });
  });
});
