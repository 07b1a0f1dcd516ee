// Airport-wide and carrier-wide disruption from what the boards the service watches showed (no
// provider call): how many flights due at an airport around the flight's time were delayed or
// cancelled, against the mean of the same hours on the seven days before; the day's cancellations;
// and the carrier's cancellations across every watched airport. The thresholds (docs/weather.md,
// "Airport-wide disruption") are what separates a wave from a busy hour.
import { DAY, HOUR, iso } from '../clock.js';
import type { BoardSighting } from './shapes.js';
import type { AirportFigures } from './shapes.js';

/** The window around the flight's time at the airport: an hour before to two after. */
export const WINDOW_BEFORE = HOUR;
export const WINDOW_AFTER = 2 * HOUR;
/** The day around it (strikes cancel whole days), and how many days before make "usual". */
export const DAY_HALF = 12 * HOUR;
export const BASELINE_DAYS = 7;

/** A wave: at least this many, and this many times the usual plus a margin. */
export const THRESHOLDS = {
  delayed: { least: 6, times: 1.8, plus: 2 },
  cancelled: { least: 3, times: 3, plus: 2 },
  strikeDay: { least: 12, times: 5, plus: 5, carriers: 3 },
  carrierDay: { least: 4, times: 4, plus: 3 },
} as const;

export interface AirportSignals {
  figures: AirportFigures;
  delayWave: boolean;
  cancelWave: boolean;
  /** Cancellations all day, by many carriers, far beyond usual: a strike of airport or ATC staff. */
  strikeDay: boolean;
  /** When the boards first showed this flight cancelled, if they did. */
  cancelledSeenAt: number | null;
}

/** What `signals` reads for a flight due at `at`: each type's ranges (the window today and on each day before; cancellations all day). */
export function windows(at: number): { type: BoardSighting['type'][]; ranges: [number, number][] }[] {
  const days = Array.from({ length: BASELINE_DAYS + 1 }, (_, k) => k * DAY);
  return [
    { type: ['flight.delayed'], ranges: days.map((k) => [at - WINDOW_BEFORE - k, at + WINDOW_AFTER - k]) },
    { type: ['flight.cancelled'], ranges: days.map((k) => [at - DAY_HALF - k, at + DAY_HALF - k]) },
  ];
}

/** The span of a carrier's cancellations `carrierStrike` reads for a flight due at `at`. */
export function span(at: number): { from: number; to: number } {
  return { from: at - DAY_HALF - BASELINE_DAYS * DAY, to: at + DAY_HALF };
}

function distinct(sightings: BoardSighting[], from: number, to: number, type: BoardSighting['type']): Set<string> {
  const out = new Set<string>();
  for (const s of sightings) if (s.type === type && s.scheduledAt >= from && s.scheduledAt < to) out.add(s.flightId);
  return out;
}

function counts(sightings: BoardSighting[], from: number, to: number): { cancelled: number; delayed: number } {
  const cancelled = distinct(sightings, from, to, 'flight.cancelled');
  const delayed = distinct(sightings, from, to, 'flight.delayed');
  for (const id of cancelled) delayed.delete(id);
  return { cancelled: cancelled.size, delayed: delayed.size };
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const wave = (count: number, usual: number, t: { least: number; times: number; plus: number }) => count >= t.least && count >= usual * t.times + t.plus;

/**
 * The airport's figures around `at` (the flight's scheduled time there), from its sightings in
 * `windows(at)`; null when the boards showed none of them (the airport is not watched, or it was
 * closed all those days).
 */
export function signals(airport: string, at: number, sightings: BoardSighting[], flight: { scheduledDeparture: number; carrier: string | null }): AirportSignals | null {
  if (sightings.length === 0) return null;
  const from = at - WINDOW_BEFORE;
  const to = at + WINDOW_AFTER;
  const now = counts(sightings, from, to);
  const usual = { cancelled: 0, delayed: 0 };
  let usualDay = 0;
  for (let k = 1; k <= BASELINE_DAYS; k++) {
    const then = counts(sightings, from - k * DAY, to - k * DAY);
    usual.cancelled += then.cancelled / BASELINE_DAYS;
    usual.delayed += then.delayed / BASELINE_DAYS;
    usualDay += distinct(sightings, at - DAY_HALF - k * DAY, at + DAY_HALF - k * DAY, 'flight.cancelled').size / BASELINE_DAYS;
  }
  const dayIds = distinct(sightings, at - DAY_HALF, at + DAY_HALF, 'flight.cancelled');
  const dayCarriers = new Set(sightings.filter((s) => dayIds.has(s.flightId)).map((s) => s.carrier));
  const t = THRESHOLDS.strikeDay;
  const own = sightings.filter((s) => s.type === 'flight.cancelled' && s.board === 'departures' && s.scheduledAt === flight.scheduledDeparture && s.carrier === flight.carrier);
  return {
    figures: { airport, from: iso(from), to: iso(to), ...now, usual: { cancelled: round1(usual.cancelled), delayed: round1(usual.delayed) } },
    delayWave: wave(now.delayed, usual.delayed, THRESHOLDS.delayed),
    cancelWave: wave(now.cancelled, usual.cancelled, THRESHOLDS.cancelled),
    strikeDay: wave(dayIds.size, usualDay, t) && dayCarriers.size >= t.carriers,
    cancelledSeenAt: own.length > 0 ? Math.min(...own.map((s) => s.seenAt)) : null,
  };
}

/**
 * Whether the carrier cancelled far more than usual that day across the watched airports (a strike of
 * its own staff): its cancellations in the day around `at` against the mean of the seven before,
 * spread over its network (no one airport holding half of them: that is the airport's strike).
 */
export function carrierStrike(at: number, sightings: BoardSighting[]): boolean {
  const today = sightings.filter((s) => s.type === 'flight.cancelled' && s.scheduledAt >= at - DAY_HALF && s.scheduledAt < at + DAY_HALF);
  const day = new Set(today.map((s) => s.flightId)).size;
  let usual = 0;
  for (let k = 1; k <= BASELINE_DAYS; k++) usual += distinct(sightings, at - DAY_HALF - k * DAY, at + DAY_HALF - k * DAY, 'flight.cancelled').size / BASELINE_DAYS;
  const byAirport = new Map<string, number>();
  for (const s of today) byAirport.set(s.airport, (byAirport.get(s.airport) ?? 0) + 1);
  return wave(day, usual, THRESHOLDS.carrierDay) && Math.max(...byAirport.values()) * 2 <= today.length;
}
