// How a verdict is said: the rationale's sentences, each naming the provider and the kind of time
// behind it (docs/flight-lookup.md), and the delay's short form.
import { EU261_DELAY_MINUTES as LONG_DELAY_MINUTES } from '../compensation/index.js';
import { utcTime } from '../clock.js';
import { weigh, type Weighed } from '../providers/doubts.js';
import type { ProviderFlight, TimeKind } from '../providers/types.js';
import {
  AGREEMENT_MINUTES,
  DELAY_THRESHOLD_MINUTES,
  type MergedFlight,
  type SelectedRecord,
  type TimeField,
} from './shapes.js';

/** Where an arrival delay lies against the thresholds the outcome turns on. */
function band(minutes: number): string {
  if (minutes < DELAY_THRESHOLD_MINUTES) return `under ${DELAY_THRESHOLD_MINUTES} minutes`;
  if (minutes < 180) return `between ${DELAY_THRESHOLD_MINUTES} minutes and 3 hours`;
  if (minutes < 240) return 'between 3 and 4 hours';
  return '4 hours or more';
}

const threshold = (minutes: number) => (minutes < 60 ? `${minutes}-minute` : `${minutes / 60}-hour`);

/** The sentence that says how the doubts were weighed, and whether the record settles for them (docs/decisions.md). */
function weighing(w: Weighed, complete: boolean): string {
  const settled = complete ? ', so the record is settled' : '';
  if (w.holds) {
    if (w.because === 'cancelled')
      return `These doubts bear on times only, and no time undoes a cancellation: they cannot change the verdict or the compensation${settled}.`;
    if (w.because === 'departure_only')
      return `These doubts bear on the departure's times only, while the arrival measures the delay: they cannot change the verdict or the compensation${settled}.`;
    const { from, to } = w.delays!;
    return `Weighed: on every reading of the doubted times the arrival delay is between ${from} and ${to} minutes, ${band(from)} whichever is right: they cannot change the verdict or the compensation${settled}.`;
  }
  if (w.because === 'threshold') {
    const { from, to } = w.delays!;
    return `Weighed: on the readings of the doubted times the arrival delay could be anything from ${from} to ${to} minutes, across the ${threshold(w.threshold!)} limit, so the record is not settled: the confidence is lowered, nothing is stored, and the verdict may change.`;
  }
  return 'Because the data contradicts itself, the record is not settled: the confidence is lowered, nothing is stored, and the verdict may change.';
}

/** `3h 12m`, `45m`, `0m`; negative delays (early) keep their sign: `-7m`. */
export function formatDelay(minutes: number): string {
  const sign = minutes < 0 ? '-' : '';
  const abs = Math.abs(minutes);
  const hours = Math.floor(abs / 60);
  return hours > 0 ? `${sign}${hours}h ${abs % 60}m` : `${sign}${abs}m`;
}

/** How a time is named in the rationale, by its kind and end. */
const KIND_WORDS: Record<TimeKind, [departure: string, arrival: string]> = {
  block: ['off-block time', 'on-block time'],
  runway: ['take-off time (runway)', 'landing time (runway)'],
  revised: ['revised estimate', 'revised estimate'],
  estimated: ["provider's own estimate", "provider's own estimate"],
  scheduled: ['timetable', 'timetable'],
};

export function rationale(merged: MergedFlight, record: SelectedRecord, f: ProviderFlight): string[] {
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
    out.push(
      `${name} ${route}, scheduled to depart ${at(record.scheduledDeparture)}, was reported cancelled by ${by('cancelled')}${raw}.`,
    );
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
    if (
      record.delayMinutes !== null &&
      record.departureDelayMinutes !== null &&
      record.departureDelayMinutes >= DELAY_THRESHOLD_MINUTES
    ) {
      const word = record.actualDeparture !== null ? 'left' : 'is expected to leave';
      out.push(
        `It ${word} ${record.originIata ?? 'its origin'} ${formatDelay(record.departureDelayMinutes)} late (scheduled ${at(record.scheduledDeparture)}, ${at(record.actualDeparture ?? record.estimatedDeparture)} by ${source(record.actualDeparture !== null ? 'actualDeparture' : 'estimatedDeparture')}).`,
      );
    }
    // A runway time standing in for a block time is said, as is a runway time that adds to one.
    for (const [field, end] of [
      ['actualDeparture', 'departure'],
      ['actualArrival', 'arrival'],
    ] as const) {
      const time = merged.times.find((t) => t.field === field);
      const [block, runway, verb] =
        end === 'departure' ? ['off-block', 'take-off', 'took off'] : ['on-block', 'landing', 'landed'];
      if (time?.kind === 'runway')
        out.push(
          `It ${verb} at ${utcTime(time.at)} by the runway time (${time.provider}); the ${block} time is missing, so the ${runway} stands in for it.`,
        );
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
  // Doubts are weighed (docs/decisions.md); a record they leave open says so, one still flying says that.
  const weighed = weigh(f, merged.doubtWeight);
  if (merged.doubts.length > 0) out.push(weighing(weighed, record.complete));
  if (!record.complete && weighed.holds)
    out.push("The flight has not finished in the providers' data: this is the picture of now and may change.");
  if (merged.disagreements.length > 0) {
    out.push(
      `Providers disagree by more than ${AGREEMENT_MINUTES} minutes on ${merged.disagreements.join(', ')}; the value of ${merged.providers[0]} (the settled record, else the first provider asked) was kept.`,
    );
  }
  if (merged.agreements.length > 0) {
    const byProviders = new Map<string, TimeField[]>();
    for (const a of merged.agreements)
      byProviders.set(a.providers.join(' and '), [...(byProviders.get(a.providers.join(' and ')) ?? []), a.field]);
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
