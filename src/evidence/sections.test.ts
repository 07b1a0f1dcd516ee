// What the evidence's verdict section says of the delay: none for a flight that never reached its
// destination (issue 44 section 3), where the API's `flightDelay.delayMinutes` is 0 only because the
// specification's field is a number.
import { describe, expect, it } from 'vitest';
import type { FlightStatusData } from '../flights/index.js';
import { Writer } from './layout.js';
import { verdictSection } from './sections.js';

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
}

const flight = (status: 'cancelled' | 'diverted' | 'delayed', delayMinutes: number | null, departureDelayMinutes: number | null) =>
  ({
    selected: { status, isCancelled: status === 'cancelled', isDiverted: status === 'diverted', delayMinutes, departureDelayMinutes },
    flightDelay: {
      delayMinutes: delayMinutes ?? 0,
      delayFormatted: `${delayMinutes ?? 0}m`,
      statusKind: status,
      disruption: { type: status === 'delayed' ? 'delay' : status === 'cancelled' ? 'cancellation' : 'diversion', neverArrived: status !== 'delayed', arrivalDelayMinutes: delayMinutes ?? 0, departureDelayMinutes: departureDelayMinutes ?? 0, confidence: 'high', sources: ['sim'], rationale: [] },
    },
  }) as unknown as FlightStatusData;

describe('the verdict section of the evidence', () => {
  it.each([
    ['a cancelled flight: no delay of either kind', flight('cancelled', null, null), ['— (cancelled)', '—', '—']],
    ['a diverted flight: no arrival delay, its departure delay', flight('diverted', null, 35), ['— (diverted)', '—', '35 minutes']],
    ['a delayed flight: its delays', flight('delayed', 212, 190), ['212m (delayed)', '212 minutes', '190 minutes']],
  ])('%s', (_, data, [delay, arrival, departure]) => {
    const w = new Facts();
    verdictSection(w, data);
    expect([w.written.get('Delay'), w.written.get('Arrival delay'), w.written.get('Departure delay')]).toEqual([delay, arrival, departure]);
  });
});
