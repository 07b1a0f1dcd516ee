// The verdict: from one merged flight to the classified record (`data.selected`) and the delay and
// disruption judgement (`data.flightDelay`). Pure functions of the record and the providers'
// agreement, so the rules in docs/flight-lookup.md are proven by table tests (verdict.test.ts).
//
// Status, in this order (the first that applies wins):
//   cancelled  the provider reports the flight cancelled;
//   diverted   the provider reports it diverted (it landed, or is landing, elsewhere);
//   delayed    the arrival delay (actual, else estimated) is 15 minutes or more; with no arrival
//              time at all, the departure delay is 15 minutes or more;
//   on_time    everything else that was matched.
// 15 minutes is the industry's and EUROCONTROL's on-time limit (A15). `isDelayed` is, as the spec
// says, exactly "arrival delay greater than zero", so a flight 5 minutes late is on_time with
// isDelayed true.
import { EU261_DELAY_MINUTES as LONG_DELAY_MINUTES } from '../compensation/index.js';
import { utcTime } from '../clock.js';
import type { ProviderFlight, TimeKind } from '../providers/types.js';

export const DELAY_THRESHOLD_MINUTES = 15;
/** Two providers' times for the same event further apart than this disagree. */
export const AGREEMENT_MINUTES = 5;

export type FlightStatus = 'delayed' | 'cancelled' | 'diverted' | 'on_time';
export type StatusKind = 'early' | 'on_time' | 'minor_delay' | 'significant_delay' | 'long_delay' | 'cancelled' | 'diverted';
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
  /** Time fields on which two providers gave values more than AGREEMENT_MINUTES apart. */
  disagreements: TimeField[];
  /** Scheduled and actual time fields that more than one provider gave, all within AGREEMENT_MINUTES. */
  agreements: { field: TimeField; providers: string[] }[];
  /**
   * What a corroborating provider (OpenSky) saw: take-off and landing, each against the record's
   * runway time when one is known (`agrees` within CORROBORATION_MINUTES; null: nothing to compare).
   */
  evidence: { provider: string; field: 'takeOff' | 'landing'; at: number; against: { provider: string; at: number } | null; agrees: boolean | null }[];
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
  aircraft: { registration: string | null; iata: string | null; icao: string | null; icao24: string | null; label: string | null } | null;
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

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
/** Whole minutes, cut toward zero: 14 min 50 s late is 14 minutes, not 15 (A15 means 15 full minutes). */
const minutesBetween = (later: number | null, earlier: number | null): number | null =>
  later === null || earlier === null ? null : Math.trunc((later - earlier) / 60_000);

/** `3h 12m`, `45m`, `0m`; negative delays (early) keep their sign: `-7m`. */
export function formatDelay(minutes: number): string {
  const sign = minutes < 0 ? '-' : '';
  const abs = Math.abs(minutes);
  const hours = Math.floor(abs / 60);
  return hours > 0 ? `${sign}${hours}h ${abs % 60}m` : `${sign}${abs}m`;
}

export function classify(merged: MergedFlight): { selected: SelectedRecord; flightDelay: FlightDelayVerdict | null } {
  const f = merged.flight;
  const arrivalTime = f.arrival.actual ?? f.arrival.estimated;
  const departureTime = f.departure.actual ?? f.departure.estimated;
  // A diverted flight never reached its destination: its arrival delay there is not a number.
  const delayMinutes = f.diverted || f.cancelled ? null : minutesBetween(arrivalTime, f.arrival.scheduled);
  const departureDelayMinutes = f.cancelled ? null : minutesBetween(departureTime, f.departure.scheduled);

  const status: FlightStatus = f.cancelled
    ? 'cancelled'
    : f.diverted
      ? 'diverted'
      : (delayMinutes ?? departureDelayMinutes ?? 0) >= DELAY_THRESHOLD_MINUTES
        ? 'delayed'
        : 'on_time';

  const selected: SelectedRecord = {
    found: true,
    // A record whose providers contradict themselves is never settled (consistency.ts).
    complete: isComplete(f) && merged.doubts.length === 0,
    status,
    isDelayed: delayMinutes !== null && delayMinutes > 0,
    isCancelled: f.cancelled,
    isDiverted: f.diverted,
    delayMinutes,
    departureDelayMinutes,
    originIata: f.departure.airport.iata,
    destinationIata: f.arrival.airport.iata,
    scheduledDeparture: iso(f.departure.scheduled),
    scheduledArrival: iso(f.arrival.scheduled),
    estimatedDeparture: iso(f.departure.estimated),
    estimatedArrival: iso(f.arrival.estimated),
    actualDeparture: iso(f.departure.actual),
    actualArrival: iso(f.arrival.actual),
    airline: f.airline.name || f.airline.iata || f.airline.icao ? { ...f.airline } : null,
    aircraft: f.aircraft
      ? {
          registration: f.aircraft.registration,
          iata: f.aircraft.typeIata,
          icao: f.aircraft.typeIcao,
          icao24: f.aircraft.icao24,
          label: f.aircraft.label,
        }
      : null,
    flightIata: f.flightIata,
    flightIcao: f.flightIcao,
    statusRaw: f.statusRaw,
    source: merged.providers[0]!,
  };

  // A verdict needs timings: a cancellation, or at least a delay to judge.
  if (!f.cancelled && !f.diverted && delayMinutes === null && departureDelayMinutes === null) return { selected, flightDelay: null };
  return { selected, flightDelay: verdict(merged, selected) };
}

/**
 * Whether the record can be settled, by outcome:
 *   cancelled: the cancellation and the scheduled departure are known;
 *   diverted:  scheduled departure and arrival, the actual departure, and the provider's word that
 *              the flight is settled (it landed at the diversion airport);
 *   otherwise: scheduled and actual departure and arrival.
 */
export function isComplete(f: ProviderFlight): boolean {
  if (f.cancelled) return f.departure.scheduled !== null;
  const scheduled = f.departure.scheduled !== null && f.arrival.scheduled !== null;
  if (f.diverted) return scheduled && f.departure.actual !== null && f.settled;
  return scheduled && f.departure.actual !== null && f.arrival.actual !== null;
}

function statusKindOf(status: FlightStatus, delay: number): StatusKind {
  if (status === 'cancelled' || status === 'diverted') return status;
  if (delay < 0) return 'early';
  if (delay < DELAY_THRESHOLD_MINUTES) return 'on_time';
  if (delay < 60) return 'minor_delay';
  if (delay < LONG_DELAY_MINUTES) return 'significant_delay';
  return 'long_delay';
}

function verdict(merged: MergedFlight, record: SelectedRecord): FlightDelayVerdict {
  const f = merged.flight;
  const arrival = record.delayMinutes ?? 0;
  const departure = record.departureDelayMinutes ?? 0;
  // With no arrival time the departure delay stands for the delay (the status used it too).
  const delay = record.delayMinutes ?? (record.isCancelled || record.isDiverted ? 0 : departure);
  const type: DisruptionType = record.isCancelled
    ? 'cancellation'
    : record.isDiverted
      ? 'diversion'
      : record.status === 'delayed'
        ? 'delay'
        : 'none';
  return {
    delayMinutes: delay,
    delayFormatted: formatDelay(delay),
    statusKind: statusKindOf(record.status, delay),
    disruption: {
      type,
      isCancelled: record.isCancelled,
      isDiverted: record.isDiverted,
      neverArrived: record.isCancelled || record.isDiverted,
      arrivalDelayMinutes: arrival,
      departureDelayMinutes: departure,
      confidence: confidenceOf(merged, record),
      sources: merged.providers,
      rationale: rationale(merged, record, f),
    },
  };
}

/**
 * high:   the outcome rests on what was seen (actual times, or a settled cancellation or diversion)
 *         and no two providers disagree about it;
 * medium: it rests on estimates (the flight has not finished), or providers disagree;
 * low:    only a departure time is known, or nothing better than the schedule.
 */
function confidenceOf(merged: MergedFlight, record: SelectedRecord): Confidence {
  const seen = record.isCancelled
    ? record.complete
    : record.isDiverted
      ? record.complete
      : record.actualArrival !== null && record.actualDeparture !== null;
  const levels: Confidence[] = ['high', 'medium', 'low'];
  let level: Confidence = 'low';
  if (seen && merged.disagreements.length === 0 && merged.evidence.every((e) => e.agrees !== false)) level = 'high';
  else if (record.delayMinutes !== null || record.isCancelled || record.isDiverted) level = 'medium';
  // A provider that contradicts itself costs one level.
  return merged.doubts.length > 0 ? levels[Math.min(levels.indexOf(level) + 1, 2)]! : level;
}

/** How a time is named in the rationale, by its kind and end. */
const KIND_WORDS: Record<TimeKind, [departure: string, arrival: string]> = {
  block: ['off-block time', 'on-block time'],
  runway: ['take-off time (runway)', 'landing time (runway)'],
  revised: ['revised estimate', 'revised estimate'],
  estimated: ["provider's own estimate", "provider's own estimate"],
  scheduled: ['timetable', 'timetable'],
};

function rationale(merged: MergedFlight, record: SelectedRecord, f: ProviderFlight): string[] {
  const out: string[] = [];
  const by = (field: string) => merged.fieldSources[field] ?? merged.providers[0]!;
  const at = (value: string | null) => (value === null ? 'unknown' : `${value.slice(0, 16).replace('T', ' ')} UTC`);
  const route = `${record.originIata ?? '?'} → ${record.destinationIata ?? '?'}`;
  const name = record.flightIata ?? record.flightIcao ?? 'The flight';
  const raw = record.statusRaw ? ` ("${record.statusRaw}")` : '';
  /** `aerodatabox, on-block time`: who gave the time and what kind of time it is. */
  const source = (field: TimeField) => {
    const time = merged.times.find((t) => t.field === field);
    if (!time) return by(field);
    return `${time.provider}, ${KIND_WORDS[time.kind][field.endsWith('Departure') ? 0 : 1]}`;
  };

  if (record.isCancelled) {
    out.push(`${name} ${route}, scheduled to depart ${at(record.scheduledDeparture)}, was reported cancelled by ${by('cancelled')}${raw}.`);
    out.push('It never operated, so it never arrived: the verdict is a cancellation.');
  } else if (record.isDiverted) {
    const where = f.divertedTo?.iata ? ` to ${f.divertedTo.iata}` : '';
    out.push(
      `${name} ${route} departed ${at(record.actualDeparture)} (scheduled ${at(record.scheduledDeparture)}) and was diverted${where}, as ${by('diverted')} reports${raw}.`,
    );
    out.push(`It never arrived at ${record.destinationIata ?? 'its destination'}: the verdict is a diversion.`);
  } else {
    const arrivalField = record.actualArrival !== null ? 'actualArrival' : 'estimatedArrival';
    const arrivalWord = record.actualArrival !== null ? 'arrived' : 'is expected to arrive';
    const arrivalTime = record.actualArrival ?? record.estimatedArrival;
    if (record.delayMinutes !== null) {
      out.push(
        `${name} ${route} was scheduled to arrive ${at(record.scheduledArrival)} and ${arrivalWord} ${at(arrivalTime)} (${source(arrivalField)}): ${describe(record.delayMinutes)}.`,
      );
    } else if (record.departureDelayMinutes !== null) {
      const word = record.actualDeparture !== null ? 'departed' : 'is expected to depart';
      out.push(
        `${name} ${route} was scheduled to depart ${at(record.scheduledDeparture)} and ${word} ${at(record.actualDeparture ?? record.estimatedDeparture)} (${source(record.actualDeparture !== null ? 'actualDeparture' : 'estimatedDeparture')}): ${describe(record.departureDelayMinutes)} at departure; no arrival time is known yet.`,
      );
    }
    if (record.delayMinutes !== null && record.departureDelayMinutes !== null && record.departureDelayMinutes >= DELAY_THRESHOLD_MINUTES) {
      const word = record.actualDeparture !== null ? 'left' : 'is expected to leave';
      out.push(
        `It ${word} ${record.originIata ?? 'its origin'} ${formatDelay(record.departureDelayMinutes)} late (scheduled ${at(record.scheduledDeparture)}, ${at(record.actualDeparture ?? record.estimatedDeparture)} by ${source(record.actualDeparture !== null ? 'actualDeparture' : 'estimatedDeparture')}).`,
      );
    }
    // A runway time standing in for a block time is said, as is a runway time that adds to one.
    for (const [field, end] of [['actualDeparture', 'departure'], ['actualArrival', 'arrival']] as const) {
      const time = merged.times.find((t) => t.field === field);
      const [block, runway, verb] = end === 'departure' ? ['off-block', 'take-off', 'took off'] : ['on-block', 'landing', 'landed'];
      if (time?.kind === 'runway') out.push(`It ${verb} at ${utcTime(time.at)} by the runway time (${time.provider}); the ${block} time is missing, so the ${runway} stands in for it.`);
    }
    if (record.status === 'delayed') {
      out.push(
        (record.delayMinutes ?? 0) >= LONG_DELAY_MINUTES
          ? 'At three hours or more late at arrival it is a delay, and reaches the EU261 compensation threshold.'
          : `At ${DELAY_THRESHOLD_MINUTES} minutes or more late it counts as a delay.`,
      );
    } else {
      const delay = record.delayMinutes ?? record.departureDelayMinutes ?? 0;
      out.push(
        delay < -DELAY_THRESHOLD_MINUTES
          ? 'That is ahead of schedule, so the flight counts as on time.'
          : `That is within ${DELAY_THRESHOLD_MINUTES} minutes of schedule, so the flight counts as on time.`,
      );
    }
  }
  if (f.operating && (f.operating.flightIata ?? f.operating.flightIcao) !== name) {
    const operator = f.operating.airline.name ?? f.operating.airline.iata ?? f.operating.airline.icao;
    out.push(
      `${name} is a codeshare: the flight is operated as ${f.operating.flightIata ?? f.operating.flightIcao}${operator ? ` by ${operator}` : ''}, and these are the operating flight's status and times.`,
    );
  }
  for (const doubt of merged.doubts) out.push(`${doubt.provider}: ${doubt.message}`);
  if (merged.doubts.length > 0) {
    out.push('Because the data contradicts itself, the record is not settled: the confidence is lowered, nothing is stored, and the verdict may change.');
  } else if (!record.complete) {
    out.push('The flight has not finished in the providers\' data: this is the picture of now and may change.');
  }
  if (merged.disagreements.length > 0) {
    out.push(
      `Providers disagree by more than ${AGREEMENT_MINUTES} minutes on ${merged.disagreements.join(', ')}; the value of ${merged.providers[0]} (the settled record, else the first provider asked) was kept.`,
    );
  }
  if (merged.agreements.length > 0) {
    const byProviders = new Map<string, TimeField[]>();
    for (const a of merged.agreements) byProviders.set(a.providers.join(' and '), [...(byProviders.get(a.providers.join(' and ')) ?? []), a.field]);
    for (const [providers, fields] of byProviders) {
      out.push(`${providers} agree within ${AGREEMENT_MINUTES} minutes on ${fields.join(', ')}.`);
    }
  }
  for (const e of merged.evidence) {
    const what = e.field === 'takeOff' ? 'take off' : 'land';
    const seen = `${e.provider} saw it ${what} at ${utcTime(e.at)} by ADS-B`;
    if (e.against === null) out.push(`${seen} (no provider gave a runway time to compare it with).`);
    else {
      const minutes = Math.round(Math.abs(e.at - e.against.at) / 60_000);
      out.push(
        e.agrees
          ? `${seen}, ${minutes} minutes from ${e.against.provider}'s runway time: it corroborates it.`
          : `${seen}, ${minutes} minutes from ${e.against.provider}'s runway time (${utcTime(e.against.at)}): one of them is wrong, so the confidence is lowered.`,
      );
    }
  }
  for (const u of merged.unconfirmed) out.push(`${u.provider}: ${u.message}`);
  if (merged.otherLegs.length > 0) {
    const legs = merged.otherLegs.map((l) => `${l.origin ?? '?'} → ${l.destination ?? '?'}`).join(', ');
    out.push(`The number also flew ${legs} that day; pass origin or destination to choose another leg.`);
  }
  return out;
}


function describe(minutes: number): string {
  if (minutes === 0) return 'exactly on schedule';
  return minutes > 0 ? `${formatDelay(minutes)} late` : `${formatDelay(-minutes)} early`;
}
