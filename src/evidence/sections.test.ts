// What the evidence's verdict section says of the delay: none for a flight that never reached its
// destination (docs/evidence.md), where the API's `flightDelay.delayMinutes` is 0 only because the
// specification's field is a number.
import { describe, expect, it } from 'vitest';
import type { FlightStatusData } from '../flights/index.js';
import { Writer } from './layout.js';
import { timesSection, verdictSection } from './sections.js';

/** The facts the section writes, without a PDF. */
class Facts extends Writer {
  readonly written = new Map<string, string>();
  constructor() {
    super({} as PDFKit.PDFDocument);
  }
  override heading(): void {}
  override text(): void {}
  override bullets(): void {}
  override facts(pairs: readonly (readonly [string, string])[]): void {
    for (const [label, value] of pairs) this.written.set(label, value);
  }
  readonly tables: { caption: string; titles: string[]; rows: string[][] }[] = [];
  override table(columns: readonly { title: string }[], rows: readonly (readonly string[])[], caption: string): void {
    this.tables.push({ caption, titles: columns.map((c) => c.title), rows: rows.map((r) => [...r]) });
  }
}

const flight = (
  status: 'cancelled' | 'diverted' | 'delayed',
  delayMinutes: number | null,
  departureDelayMinutes: number | null,
) =>
  ({
    selected: {
      status,
      isCancelled: status === 'cancelled',
      isDiverted: status === 'diverted',
      delayMinutes,
      departureDelayMinutes,
    },
    flightDelay: {
      delayMinutes: delayMinutes ?? 0,
      delayFormatted: `${delayMinutes ?? 0}m`,
      statusKind: status,
      disruption: {
        type: status === 'delayed' ? 'delay' : status === 'cancelled' ? 'cancellation' : 'diversion',
        neverArrived: status !== 'delayed',
        arrivalDelayMinutes: delayMinutes ?? 0,
        departureDelayMinutes: departureDelayMinutes ?? 0,
        confidence: 'high',
        sources: ['sim'],
        rationale: [],
      },
    },
  }) as unknown as FlightStatusData;

describe('the verdict section of the evidence', () => {
  it.each([
    ['a cancelled flight: no delay of either kind', flight('cancelled', null, null), ['— (cancelled)', '—', '—']],
    [
      'a diverted flight: no arrival delay, its departure delay',
      flight('diverted', null, 35),
      ['— (diverted)', '—', '35 minutes'],
    ],
    ['a delayed flight: its delays', flight('delayed', 212, 190), ['212m (delayed)', '212 minutes', '190 minutes']],
  ])('%s', (_, data, [delay, arrival, departure]) => {
    const w = new Facts();
    verdictSection(w, data);
    expect([w.written.get('Delay'), w.written.get('Arrival delay'), w.written.get('Departure delay')]).toEqual([
      delay,
      arrival,
      departure,
    ]);
  });
});

describe('the times section of the evidence', () => {
  it('gives the record in local time at each airport, with the zones, beside the UTC table', () => {
    const end = (airport: string, timezone: string, scheduled: string, actual: string | null) => ({
      airport,
      timezone,
      scheduled,
      estimated: null,
      actual,
    });
    const data = {
      selected: {
        scheduledDeparture: '2026-02-20T23:15:00.000Z',
        scheduledArrival: '2026-02-21T01:40:00.000Z',
        estimatedDeparture: null,
        estimatedArrival: null,
        actualDeparture: null,
        actualArrival: null,
      },
      localTimes: {
        departure: end('AGP', 'Europe/Madrid', '2026-02-21T00:15:00+01:00', null),
        arrival: end('LGW', 'Europe/London', '2026-02-21T01:40:00+00:00', '2026-02-21T01:52:00+00:00'),
      },
      sources: [],
    } as unknown as FlightStatusData;
    const w = new Facts();
    timesSection(w, data);
    const local = w.tables.find((t) => t.caption === 'The record in local time at each airport')!;
    expect(local.titles).toEqual(['', 'Departure (AGP, Europe/Madrid)', 'Arrival (LGW, Europe/London)']);
    expect(local.rows).toEqual([
      ['Scheduled', '2026-02-21 00:15 (UTC+01:00)', '2026-02-21 01:40 (UTC+00:00)'],
      ['Estimated', '—', '—'],
      ['Actual', '—', '2026-02-21 01:52 (UTC+00:00)'],
    ]);
  });
});
