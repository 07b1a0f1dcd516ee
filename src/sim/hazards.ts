// What disrupts the simulated world's flights besides their own airline: the weather (weather.ts),
// and the airport-wide events drawn here: air traffic control restrictions, airport failures (a
// runway closed, a systems outage, a security alert) and strikes by third parties (ATC, airport or
// handling staff), per airport and UTC day; and airline strikes, per carrier and day. Each has a
// window and an effect on the legs that leave or arrive inside it (day.ts applies them), and each
// names the cause the world's ground truth gives the flights it delays, diverts or cancels.
//
// Frequencies (docs/simulation.md, "Causes"): ATC restrictions on 3 % of airport-days (4 % from May
// to September, when EUROCONTROL's en-route capacity and staffing regulations peak), an airport
// failure on 0.8 %, a third-party strike on 0.4 % (announced days ahead), an airline strike on 0.15 %
// of a carrier's days.
import { DAY, HOUR } from '../clock.js';
import type { ReferenceAirport } from '../airports/index.js';
import { hashString, Rng } from './random.js';
import type { SimWeather } from './weather.js';

/** Why a simulated flight was late, cancelled or diverted (the ground truth's `delayCause.kind`). */
export type CauseKind =
  'none' | 'weather' | 'atc' | 'airport' | 'technical' | 'crew' | 'airline_strike' | 'third_party_strike' | 'knock_on';

export const CAUSE_KINDS: readonly CauseKind[] = [
  'none',
  'weather',
  'atc',
  'airport',
  'technical',
  'crew',
  'airline_strike',
  'third_party_strike',
  'knock_on',
];

/** A disruption at an airport (or of a carrier) for a window of time. */
export interface Hazard {
  kind: 'weather' | 'atc' | 'airport' | 'third_party_strike' | 'airline_strike';
  /** `severe` stops or halves operations; `moderate` slows them. */
  level: 'severe' | 'moderate';
  /** When it was announced (strikes are announced days ahead); the window's start otherwise. */
  announcedAt: number;
}

interface Window {
  kind: 'atc' | 'airport' | 'third_party_strike';
  from: number;
  to: number;
  announcedAt: number;
}

export class Hazards {
  private readonly airportDays = new WeakMap<ReferenceAirport, Map<number, Window | null>>();
  private readonly strikes = new Map<string, boolean>();

  constructor(
    private readonly seed: number,
    readonly weather: SimWeather,
    /** Airports whose boards the world shows: the ones that have ATC, airport and strike events. */
    private readonly catalogue: ReadonlySet<string>,
  ) {}

  /**
   * The worst hazard at the airport at `at`: a strike or airport failure first, then severe weather,
   * ATC, and weather within limits. Null when nothing is wrong.
   */
  at(airport: ReferenceAirport, at: number): Hazard | null {
    const window = this.window(airport, Math.floor(at / DAY));
    const inside = window && at >= window.from && at < window.to ? window : null;
    if (inside && inside.kind !== 'atc') return { kind: inside.kind, level: 'severe', announcedAt: inside.announcedAt };
    const severity = this.weather.severity(airport, at);
    if (severity === 'beyond_limits') return { kind: 'weather', level: 'severe', announcedAt: at };
    if (inside) return { kind: 'atc', level: 'moderate', announcedAt: inside.from };
    if (severity === 'within_limits') return { kind: 'weather', level: 'moderate', announcedAt: at };
    return null;
  }

  /** Whether the carrier (by ICAO code) is on strike on the UTC day of `at`. */
  airlineStrike(icao: string, at: number): Hazard | null {
    const day = Math.floor(at / DAY);
    const key = `${icao}|${day}`;
    let striking = this.strikes.get(key);
    if (striking === undefined) {
      striking = new Rng(hashString(`strike|${key}`, this.seed)).chance(0.0015);
      if (this.strikes.size > 50_000) this.strikes.clear();
      this.strikes.set(key, striking);
    }
    if (!striking) return null;
    const notice = new Rng(hashString(`strike-notice|${key}`, this.seed)).between(1, 7);
    return { kind: 'airline_strike', level: 'severe', announcedAt: day * DAY - notice * DAY };
  }

  private window(airport: ReferenceAirport, day: number): Window | null {
    let days = this.airportDays.get(airport);
    if (!days) this.airportDays.set(airport, (days = new Map()));
    let window = days.get(day);
    if (window === undefined) {
      window = this.catalogue.has(airport.iata) ? drawWindow(this.seed, airport, day) : null;
      if (days.size > 5_000) days.clear();
      days.set(day, window);
    }
    return window;
  }
}

/** The airport-day's non-weather event, if any. Times are solar (UTC shifted by longitude). */
function drawWindow(seed: number, airport: ReferenceAirport, day: number): Window | null {
  const rng = new Rng(hashString(`hazard|${airport.iata}|${day}`, seed));
  const month = new Date(day * DAY).getUTCMonth() + 1;
  const midnight = day * DAY - (airport.longitude / 15) * HOUR;
  const roll = rng.next();
  const atc = month >= 5 && month <= 9 ? 0.04 : 0.03;
  if (roll < 0.004) {
    // A strike of ATC, airport or handling staff: the whole operating day, announced one to three days ahead.
    return {
      kind: 'third_party_strike',
      from: midnight + 5 * HOUR,
      to: midnight + 23 * HOUR,
      announcedAt: midnight - rng.between(1, 3) * DAY,
    };
  }
  if (roll < 0.012) {
    const from = midnight + rng.between(6 * 60, 21 * 60) * 60_000;
    return { kind: 'airport', from, to: from + rng.between(60, 240) * 60_000, announcedAt: from };
  }
  if (roll < 0.012 + atc) {
    const from = midnight + rng.between(7 * 60, 15 * 60) * 60_000;
    return { kind: 'atc', from, to: from + rng.between(4 * 60, 9 * 60) * 60_000, announcedAt: from };
  }
  return null;
}
