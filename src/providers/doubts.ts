// Weighing a picture's doubts (docs/decisions.md, "Doubts that cannot move the outcome"): a doubt
// leaves a record unsettled only when some reading of the doubted times could change its outcome,
// the status class and the EU261 / UK261 result. Each doubt says what it bears on:
//   - `departure`: only the departure's times (a take-off before the off-block time, a revised
//     departure that copies the schedule): the arrival measures the delay of a flight that arrived;
//   - an arrival range: the arrival could have been any time in it instead of the one used (a gate
//     arrival that copies the landing: from the landing to the landing and the longest ordinary
//     taxi-in; a delay field that disagrees with the times: the time it implies);
//   - `outcome`: whether the flight happened as the picture says, or whether it is this flight at all
//     (FlightAware's "result unknown", a take-off hours before the schedule, a schedule that is a copy
//     of the actual times): no reading can be bounded, so it never settles.
// The readings' arrival delays, from the earliest to the latest, must lie on one side of each
// threshold the outcome turns on: 15 minutes (on time or delayed), 3 hours (EU261 / UK261 owed),
// 4 hours (the halving of Article 7(2)(c) for long flights).
import { MINUTE } from '../clock.js';
import type { ProviderFlight } from './types.js';

/** What a picture's doubts leave open. */
export interface DoubtWeight {
  /** Every doubt bears on times only, never on whether the flight happened as given or which flight it is. */
  timesOnly: boolean;
  /** Arrival times the doubted readings allow instead of the one used (earliest, latest); null when no doubt bears on the arrival. */
  arrival: { from: number; to: number } | null;
}

/** The arrival delays, in minutes, at which the outcome changes. */
export const OUTCOME_THRESHOLDS_MINUTES = [15, 180, 240] as const;

/**
 * The longest ordinary taxi-in. Taxi-in is about 5 % of a flight's block time (EUROCONTROL Data
 * Snapshot #40); at Europe's five busiest airports taxi-out and taxi-in together typically exceed
 * 20 minutes, most of it taxi-out. A doubt that needs a longer taxi-in to cross a threshold is
 * weighed as unable to.
 */
export const TAXI_IN_MAX_MINUTES = 20;

export type Bearing = 'departure' | 'outcome' | { from: number; to: number };

/** The arrival range of a gate arrival not known from a landing: from the landing to the longest ordinary taxi-in after it. */
export const afterLanding = (landing: number): Bearing => ({
  from: landing,
  to: landing + TAXI_IN_MAX_MINUTES * MINUTE,
});

/** An adapter's doubts as it finds them: the sentences for the rationale, and what they bear on together. */
export class Doubts {
  readonly messages: string[] = [];
  private timesOnly = true;
  private arrival: { from: number; to: number } | null = null;

  add(message: string, bears: Bearing): void {
    this.messages.push(message);
    if (bears === 'outcome') this.timesOnly = false;
    else if (bears !== 'departure') this.widen(bears);
  }

  /** Another list's doubts after these. */
  join(other: Doubts): void {
    this.messages.push(...other.messages);
    this.timesOnly &&= other.timesOnly;
    if (other.arrival) this.widen(other.arrival);
  }

  private widen(range: { from: number; to: number }): void {
    this.arrival = this.arrival
      ? { from: Math.min(this.arrival.from, range.from), to: Math.max(this.arrival.to, range.to) }
      : { ...range };
  }

  get length(): number {
    return this.messages.length;
  }

  /** The fields of a ProviderFlight: none without doubts. */
  fields(): Pick<ProviderFlight, 'doubts' | 'doubtWeight'> {
    return this.messages.length > 0
      ? { doubts: [...this.messages], doubtWeight: { timesOnly: this.timesOnly, arrival: this.arrival } }
      : {};
  }
}

/** Two pictures' (or two lists') weights as one: times only when both are; the wider arrival range. */
export function combineWeights(a: DoubtWeight, b: DoubtWeight): DoubtWeight {
  const arrival =
    a.arrival && b.arrival
      ? { from: Math.min(a.arrival.from, b.arrival.from), to: Math.max(a.arrival.to, b.arrival.to) }
      : (a.arrival ?? b.arrival);
  return { timesOnly: a.timesOnly && b.timesOnly, arrival };
}

/** The weight of a picture's doubts: what it carries, or (doubts said without one) an outcome in doubt. */
export const weightOf = (f: Pick<ProviderFlight, 'doubts' | 'doubtWeight'>): DoubtWeight | null =>
  (f.doubts?.length ?? 0) === 0 ? null : (f.doubtWeight ?? { timesOnly: false, arrival: null });

export type Weighed =
  /** No doubt, or none that any reading lets change the outcome. */
  | {
      holds: true;
      because: 'no_doubt' | 'cancelled' | 'departure_only' | 'arrival_range';
      delays?: { from: number; to: number };
    }
  /** A doubt can change it: the outcome itself is in doubt, or a reading crosses a threshold. */
  | {
      holds: false;
      because: 'outcome' | 'no_arrival' | 'threshold';
      delays?: { from: number; to: number };
      threshold?: number;
    };

/** Whether any reading of the doubted times could change the outcome of this picture. */
export function weigh(
  f: Pick<ProviderFlight, 'cancelled' | 'diverted' | 'arrival'>,
  weight: DoubtWeight | null,
): Weighed {
  if (weight === null) return { holds: true, because: 'no_doubt' };
  if (!weight.timesOnly) return { holds: false, because: 'outcome' };
  // Times cannot undo a cancellation; the departure's times do not measure an arrival delay.
  if (f.cancelled) return { holds: true, because: 'cancelled' };
  if (weight.arrival === null && !f.diverted) return { holds: true, because: 'departure_only' };
  const used = f.arrival.actual ?? f.arrival.estimated;
  const scheduled = f.arrival.scheduled;
  if (f.diverted || used === null || scheduled === null) return { holds: false, because: 'no_arrival' };
  const range = weight.arrival!;
  const delays = {
    from: Math.trunc((Math.min(used, range.from) - scheduled) / MINUTE),
    to: Math.trunc((Math.max(used, range.to) - scheduled) / MINUTE),
  };
  const threshold = OUTCOME_THRESHOLDS_MINUTES.find((t) => delays.from < t && delays.to >= t);
  return threshold === undefined
    ? { holds: true, because: 'arrival_range', delays }
    : { holds: false, because: 'threshold', delays, threshold };
}
