// What the verdict works on and gives: one merged flight, the classified record and the delay and
// disruption judgement, and the thresholds they are judged by. The rules are in verdict.ts, the words
// that explain them in rationale.ts.
import type { DoubtWeight, ProviderFlight, TimeKind } from '../providers/types.js';

export const DELAY_THRESHOLD_MINUTES = 15;
/** Two providers' times for the same event further apart than this disagree. */
export const AGREEMENT_MINUTES = 5;

export type FlightStatus = 'delayed' | 'cancelled' | 'diverted' | 'on_time';
export type StatusKind =
  'early' | 'on_time' | 'minor_delay' | 'significant_delay' | 'long_delay' | 'cancelled' | 'diverted';
export type DisruptionType = 'none' | 'delay' | 'cancellation' | 'diversion';
export type Confidence = 'high' | 'medium' | 'low';

/** The time fields a record exposes, by name. */
export const TIME_FIELDS = [
  'scheduledDeparture',
  'scheduledArrival',
  'estimatedDeparture',
  'estimatedArrival',
  'actualDeparture',
  'actualArrival',
] as const;
export type TimeField = (typeof TIME_FIELDS)[number];

/** One flight after the merge, with the provider behind each field. */
export interface MergedFlight {
  flight: ProviderFlight;
  /** Provider names that contributed a field, first the one the record came from. */
  providers: string[];
  /** Field name → provider that supplied it. */
  fieldSources: Record<string, string>;
  /** Every time the record uses, with its provider and kind; `takeOff` and `landing` are runway times. */
  times: { provider: string; field: TimeField | 'takeOff' | 'landing'; kind: TimeKind; at: number }[];
  /** Where a picture the times came from contradicts itself (ProviderFlight.doubts, consistency.ts). */
  doubts: { provider: string; message: string }[];
  /** What the doubts bear on together (providers/doubts.ts), null without doubts: the verdict weighs it against the record's times. */
  doubtWeight: DoubtWeight | null;
  /** Time fields on which two providers gave values more than AGREEMENT_MINUTES apart. */
  disagreements: TimeField[];
  /** Scheduled and actual time fields that more than one provider gave, all within AGREEMENT_MINUTES. */
  agreements: { field: TimeField; providers: string[] }[];
  /**
   * What a corroborating provider (OpenSky) saw: take-off and landing, each against the record's
   * runway time when one is known (`agrees` within CORROBORATION_MINUTES; null: nothing to compare).
   */
  evidence: {
    provider: string;
    field: 'takeOff' | 'landing';
    at: number;
    against: { provider: string; at: number } | null;
    agrees: boolean | null;
  }[];
  /** What a corroborating provider saw but could not corroborate, and why (never a doubt about the record). */
  unconfirmed: { provider: string; message: string }[];
  /** Other legs flown under the number that day, when the lookup did not say which. */
  otherLegs: { origin: string | null; destination: string | null }[];
}

export interface SelectedRecord {
  found: true;
  complete: boolean;
  status: FlightStatus;
  isDelayed: boolean;
  isCancelled: boolean;
  isDiverted: boolean;
  delayMinutes: number | null;
  departureDelayMinutes: number | null;
  originIata: string | null;
  destinationIata: string | null;
  scheduledDeparture: string | null;
  scheduledArrival: string | null;
  estimatedDeparture: string | null;
  estimatedArrival: string | null;
  actualDeparture: string | null;
  actualArrival: string | null;
  airline: { name: string | null; iata: string | null; icao: string | null } | null;
  aircraft: {
    registration: string | null;
    iata: string | null;
    icao: string | null;
    icao24: string | null;
    label: string | null;
  } | null;
  flightIata: string | null;
  flightIcao: string | null;
  statusRaw: string | null;
  source: string;
}

export interface FlightDelayVerdict {
  delayMinutes: number;
  delayFormatted: string;
  statusKind: StatusKind;
  disruption: {
    type: DisruptionType;
    isCancelled: boolean;
    isDiverted: boolean;
    neverArrived: boolean;
    arrivalDelayMinutes: number;
    departureDelayMinutes: number;
    confidence: Confidence;
    sources: string[];
    rationale: string[];
  };
}
