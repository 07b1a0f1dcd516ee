// One end of aviationstack's `/flights` row read (aviationstack/flight.ts reads the row; docs/providers.md,
// "aviationstack", says why each rule is there): local wall-clock times mislabelled `+00:00` read in the
// end's zone, and the `delay` field checked against the actual and the estimated time.
import { MINUTE, utcTime } from '../../clock.js';
import type { ReferenceAirports } from '../../airports/index.js';
import { str } from '../measured.js';
import { Doubts, type Bearing } from '../doubts.js';
import type { AirportRef, FlightEnd } from '../types.js';
import { isZone, zonedToUtc } from '../zones.js';
import type { Json } from './flight.js';

/** A code as aviationstack writes it (case varies), upper-case, or null. */
export const code = (value: unknown) => str(value)?.toUpperCase() ?? null;

/** An end's zone: an IANA name, or a fixed UTC offset in minutes (from a `timezone` such as `"+8"`). */
export type Zone = string | number;

/** Minutes east of UTC of an offset written as a zone (`+8`, `+08:00`, `-3:30`, `UTC+5:45`, `GMT-4`), or null. */
export function offsetOfText(text: string): number | null {
  const m = /^(?:UTC|GMT)?\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?$/i.exec(text.trim());
  if (!m) return null;
  const hours = Number(m[2]);
  const minutes = Number(m[3] ?? 0);
  if (hours > 14 || minutes >= 60) return null;
  return (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/** The wall-clock part of `2020-02-04T20:25:00+00:00` (the label is not the zone) in `zone`. */
export function localTime(value: unknown, zone: Zone | null): number | null {
  const text = str(value);
  if (!text || zone === null) return null;
  const wall = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?)/.exec(text)?.[1];
  if (!wall) return null;
  if (typeof zone === 'string') return zonedToUtc(wall, zone);
  const asUtc = Date.parse(`${wall}Z`);
  return Number.isNaN(asUtc) ? null : asUtc - zone * MINUTE;
}

export const minutes = (n: number) => `${n} minute${Math.abs(n) === 1 ? '' : 's'}`;
/** How far `at` is from the schedule, in words: "16 minutes before", "8 minutes after", "exactly at". */
export const against = (at: number, scheduled: number) => {
  const m = Math.round((at - scheduled) / MINUTE);
  return m === 0 ? 'exactly at' : m < 0 ? `${minutes(-m)} before` : `${minutes(m)} after`;
};

/** A `delay` field (minutes, a number or a numeric string), or null. */
export function delayField(value: unknown): number | null {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^-?\d+$/.test(value.trim())
        ? Number(value)
        : Number.NaN;
  return Number.isFinite(n) ? n : null;
}

/**
 * How far a `delay` field may stray from the times before it is a contradiction: the corpus shows it
 * a minute off in most rows (seconds cut off on one side, rounded on the other).
 */
export const DELAY_SLACK_MINUTES = 2;

/** One end read: the provider-neutral end, and what its fields say that the end cannot hold. */
export interface EndRead {
  end: FlightEnd;
  /** Contradictions within the end, as doubts. */
  doubts: Doubts;
}

/**
 * The zone of an end: aviationstack's own when it is an IANA name; else the reference airports' zone
 * of its IATA code (it knows summer time); else aviationstack's own when it is a UTC offset (`"+8"`);
 * else none, and the end's times stay null.
 */
export function zoneOf(airports: ReferenceAirports, end: Json | undefined, iata: string | null): Zone | null {
  const own = str(end?.timezone);
  // An offset ("+8", "+05:45") is never taken for a zone name: Node 24's Intl accepts "+05:45" as
  // one, Node 20's does not, and the reference airports' zone (with its summer time) comes first.
  const offset = own ? offsetOfText(own) : null;
  if (own && offset === null && isZone(own)) return own;
  const reference = iata ? airports.find(iata)?.timezone : undefined;
  if (reference) return reference;
  return offset;
}

/**
 * One end. `actual` is the block time (`actual`), else the runway time (`actual_runway`); when the
 * two are equal (aviationstack fills one from the other) it is a runway time. `estimated` equal to
 * the schedule is the schedule copied, not an estimate, when the end's actual time or its `delay`
 * field says otherwise: it is dropped.
 */
export function readEnd(
  airports: ReferenceAirports,
  end: Json | undefined,
  happened: boolean,
  side: 'departure' | 'arrival',
): EndRead {
  const airport: AirportRef = { iata: code(end?.iata), icao: code(end?.icao) };
  const zone = zoneOf(airports, end, airport.iata);
  const at = (field: string) => localTime(end?.[field], zone);
  const scheduled = at('scheduled');
  const block = happened ? at('actual') : null;
  const runwayAt = happened ? at('actual_runway') : null;
  const actual = block ?? runwayAt;
  const actualKind: 'block' | 'runway' = block === null || block === runwayAt ? 'runway' : 'block';
  let estimated = at('estimated');
  const delay = delayField(end?.delay);
  const doubts = new Doubts();
  // A delay field that disagrees with a time: either may be wrong. At the arrival, the time it implies is a reading.
  const orDelayField = (time: number): Bearing =>
    side === 'departure'
      ? 'departure'
      : { from: Math.min(time, scheduled! + delay! * MINUTE), to: Math.max(time, scheduled! + delay! * MINUTE) };
  // Nothing is expected at an end that will not happen (cancelled; a diverted flight's planned arrival).
  if (happened && scheduled !== null && delay !== null && delay > 0) {
    if (actual !== null) {
      const measured = Math.round((actual - scheduled) / MINUTE);
      if (Math.abs(measured - delay) > DELAY_SLACK_MINUTES)
        doubts.add(
          `The ${side} delay field says ${minutes(delay)} late while the actual ${side} at ${utcTime(actual)} is ${against(actual, scheduled)} the schedule (${utcTime(scheduled)}); the times are used.`,
          orDelayField(actual),
        );
    } else if (estimated !== null && delay > DELAY_SLACK_MINUTES) {
      if (estimated === scheduled) {
        doubts.add(
          `The ${side} estimate equals the schedule (${utcTime(scheduled)}) while the delay field says ${minutes(delay)} late; no expected ${side} time is given.`,
          orDelayField(estimated),
        );
      } else if (Math.abs(Math.round((estimated - scheduled) / MINUTE) - delay) > DELAY_SLACK_MINUTES) {
        doubts.add(
          `The ${side} delay field says ${minutes(delay)} late while the estimate (${utcTime(estimated)}) is ${against(estimated, scheduled)} the schedule (${utcTime(scheduled)}); the estimate is used.`,
          orDelayField(estimated),
        );
      }
    }
  }
  if (
    estimated !== null &&
    estimated === scheduled &&
    ((actual !== null && actual !== scheduled) || (delay !== null && delay > DELAY_SLACK_MINUTES))
  )
    estimated = null;
  return {
    end: {
      airport,
      scheduled,
      estimated,
      ...(estimated !== null ? { estimatedKind: 'estimated' as const } : {}),
      actual,
      ...(actual !== null ? { actualKind } : {}),
      runway: null,
      runwayAt,
    },
    doubts,
  };
}
