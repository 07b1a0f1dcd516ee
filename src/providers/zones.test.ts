// Zone offsets around daylight-saving changes, against the IANA data Node ships, read another way
// (Intl's `longOffset` zone name, "GMT-02:30", rather than the wall-clock parts zones.ts reads).
// The changes that fall off the whole UTC hour are the ones an hourly cache got wrong.
import { describe, expect, it } from 'vitest';
import { MINUTE } from '../clock.js';
import { localMinute, offsetMinutes, zonedToUtc } from './zones.js';

/** The offset in minutes as Intl names it ("GMT+10:30" → 630; "GMT" → 0). */
function reference(zone: string, at: number): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
    .formatToParts(at)
    .find((p) => p.type === 'timeZoneName')!.value;
  const m = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(name);
  if (!m) throw new Error(`unexpected zone name ${name}`);
  return m[1] ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

// Each change: the zone, the first instant of the new offset, the offsets before and after.
const CHANGES: [zone: string, at: string, before: number, after: number][] = [
  ['America/St_Johns', '2025-03-09T05:30:00Z', -210, -150], // 02:00 local, at :30 UTC
  ['America/St_Johns', '2025-11-02T04:30:00Z', -150, -210],
  ['Australia/Adelaide', '2025-04-05T16:30:00Z', 630, 570],
  ['Australia/Adelaide', '2025-10-04T16:30:00Z', 570, 630],
  ['Australia/Lord_Howe', '2025-04-05T15:00:00Z', 660, 630], // a 30-minute change
  ['Australia/Lord_Howe', '2025-10-04T15:30:00Z', 630, 660],
  ['Pacific/Chatham', '2025-04-05T14:00:00Z', 825, 765], // 03:45 local
  ['Pacific/Chatham', '2025-09-27T14:00:00Z', 765, 825],
  ['Europe/London', '2025-03-30T01:00:00Z', 0, 60],
  ['Europe/London', '2025-10-26T01:00:00Z', 60, 0],
  ['Europe/Bucharest', '2025-03-30T01:00:00Z', 120, 180],
  ['Europe/Bucharest', '2025-10-26T01:00:00Z', 180, 120],
  ['Europe/Lisbon', '2025-03-30T01:00:00Z', 0, 60],
  ['Europe/Madrid', '2025-10-26T01:00:00Z', 120, 60],
];

describe('zone offsets around daylight-saving changes', () => {
  it.each(CHANGES)('%s changes at %s from %i to %i minutes, to the minute', (zone, at, before, after) => {
    const change = Date.parse(at);
    expect(reference(zone, change - MINUTE)).toBe(before);
    expect(reference(zone, change)).toBe(after);
    // Every minute of the two hours around the change, asked in an order that fills the cache from
    // either side, against the reference.
    for (const order of [1, -1]) {
      for (let i = 0; i <= 240; i++) {
        const minute = change + order * (i - 120) * MINUTE;
        for (const second of [0, 59_999])
          expect(offsetMinutes(zone, minute + second), `${zone} at ${new Date(minute + second).toISOString()}`).toBe(
            reference(zone, minute),
          );
      }
    }
  });

  it('gives the cases an hourly cache got wrong', () => {
    expect(offsetMinutes('America/St_Johns', Date.parse('2025-03-09T05:45:00Z'))).toBe(-150);
    expect(offsetMinutes('Australia/Adelaide', Date.parse('2025-04-05T16:45:00Z'))).toBe(570);
    expect(localMinute(Date.parse('2025-03-09T05:45:00Z'), 'America/St_Johns')).toBe('2025-03-09T03:15');
  });

  it('turns wall-clock times back into instants on both sides of a change, and through a skipped or repeated time', () => {
    for (const [zone, at] of CHANGES) {
      const change = Date.parse(at);
      // Outside the time a change repeats (the first instant is taken there: below).
      for (const minutes of [-90, -31, 61, 90]) {
        const instant = change + minutes * MINUTE;
        expect(zonedToUtc(localMinute(instant, zone), zone), `${zone} ${new Date(instant).toISOString()}`).toBe(
          instant,
        );
      }
    }
    // Lord Howe skips 02:00–02:29 on 5 October 2025: 02:15 is read as 02:45, 30 minutes on.
    expect(localMinute(zonedToUtc('2025-10-05T02:15', 'Australia/Lord_Howe')!, 'Australia/Lord_Howe')).toBe(
      '2025-10-05T02:45',
    );
    // St John's skips 02:00–02:59 on 9 March 2025: 02:30 is read as 03:30.
    expect(localMinute(zonedToUtc('2025-03-09T02:30', 'America/St_Johns')!, 'America/St_Johns')).toBe(
      '2025-03-09T03:30',
    );
    // A repeated time is its first instant, east and west of Greenwich: London repeats 01:00–01:59 on
    // 26 October 2025 (01:30 BST), St John's 01:00–01:59 on 2 November (01:30 NDT), Lord Howe
    // 01:30–01:59 on 6 April (01:45 at +11:00).
    expect(zonedToUtc('2025-10-26T01:30', 'Europe/London')).toBe(Date.parse('2025-10-26T00:30:00Z'));
    expect(zonedToUtc('2025-11-02T01:30', 'America/St_Johns')).toBe(Date.parse('2025-11-02T04:00:00Z'));
    expect(zonedToUtc('2025-04-06T01:45', 'Australia/Lord_Howe')).toBe(Date.parse('2025-04-05T14:45:00Z'));
    expect(zonedToUtc('2025-07-01T12:00', 'Europe/Bucharest')).toBe(Date.parse('2025-07-01T09:00:00Z'));
    expect(zonedToUtc('not a time', 'Europe/Bucharest')).toBeNull();
  });
});
