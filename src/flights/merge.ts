// Choosing the leg and merging providers' pictures of it, field by field.
//
// Each provider answers with every leg flown under the number that day (already narrowed by
// origin/destination when the lookup gave them). The leg is the first by scheduled departure unless
// the lookup narrowed it; other providers' legs are matched to it by route, else by a scheduled
// departure within an hour. The merged record starts from the most authoritative picture (a settled
// one first, else the first provider's in the configured order) and fills each field it lacks from
// the others in order; each field remembers the provider it came from.
import { combineWeights, weightOf } from '../providers/doubts.js';
import type { DoubtWeight, FlightEnd, ProviderFlight, TimeKind } from '../providers/types.js';
import { AGREEMENT_MINUTES, type MergedFlight, type TimeField } from './shapes.js';

export interface Matched {
  provider: string;
  /** Every leg the provider returned. */
  legs: ProviderFlight[];
  /** The answer of a corroborating provider (OpenSky): evidence about the record, not a picture of it. */
  corroborates?: boolean;
}

/** How far an ADS-B first or last contact may lie from a provider's runway time and still agree. */
export const CORROBORATION_MINUTES = 10;

const MATCH_WINDOW_MS = 60 * 60_000;

/** The leg the lookup is about, from the first provider's answer. */
export function chooseLeg(legs: ProviderFlight[]): ProviderFlight {
  return [...legs].sort((a, b) => (a.departure.scheduled ?? Infinity) - (b.departure.scheduled ?? Infinity))[0]!;
}

/** Same route when both name it, and scheduled departures within an hour when both give one. */
function sameLeg(a: ProviderFlight, b: ProviderFlight): boolean {
  const route = (f: ProviderFlight) => [f.departure.airport.iata, f.arrival.airport.iata];
  const [ao, ad] = route(a);
  const [bo, bd] = route(b);
  const routeKnown = Boolean(ao && ad && bo && bd);
  if (routeKnown && (ao !== bo || ad !== bd)) return false;
  const timesKnown = a.departure.scheduled !== null && b.departure.scheduled !== null;
  if (timesKnown && Math.abs(a.departure.scheduled! - b.departure.scheduled!) > MATCH_WINDOW_MS) return false;
  return routeKnown || timesKnown;
}

/** Field paths merged one by one (the flags and phase travel with the base record). */
const TIME_PATHS: [TimeField, 'departure' | 'arrival', keyof FlightEnd][] = [
  ['scheduledDeparture', 'departure', 'scheduled'],
  ['scheduledArrival', 'arrival', 'scheduled'],
  ['estimatedDeparture', 'departure', 'estimated'],
  ['estimatedArrival', 'arrival', 'estimated'],
  ['actualDeparture', 'departure', 'actual'],
  ['actualArrival', 'arrival', 'actual'],
];
/** `divertedTo` travels with the flags of the base record: a diversion is the base provider's word. */
const SCALARS = ['flightIata', 'flightIcao', 'callsign', 'statusRaw', 'aircraft'] as const;

/** What kind of time one end's field is, as its provider said (block and provider estimate by default). */
function kindOf(end: FlightEnd, key: keyof FlightEnd): TimeKind {
  if (key === 'estimated') return end.estimatedKind ?? 'estimated';
  if (key === 'actual') return end.actualKind ?? 'block';
  return 'scheduled';
}

/** Merges the answers of the providers that matched, in configured order. */
export function mergeAnswers(all: Matched[]): MergedFlight | null {
  const answers = all.filter((a) => !a.corroborates);
  if (answers.length === 0) return null;
  // The leg comes from the settled answer when there is one (it ended the cascade), else the first.
  const leading = answers.find((a) => a.legs.every((l) => l.settled)) ?? answers[0]!;
  const chosen = chooseLeg(leading.legs);
  const pictures: { provider: string; flight: ProviderFlight }[] = [];
  for (const answer of answers) {
    const leg = answer === leading ? chosen : answer.legs.find((l) => sameLeg(l, chosen));
    if (leg) pictures.push({ provider: answer.provider, flight: leg });
  }
  // The settled picture is the authority; incomplete ones only fill what it lacks.
  const ordered = [...pictures.filter((p) => p.flight.settled), ...pictures.filter((p) => !p.flight.settled)];
  const base = ordered[0]!;
  // The record's doubts are MergedFlight.doubts (each with its provider), not the base picture's.
  const { doubts: _baseDoubts, ...baseFlight } = base.flight;
  const flight: ProviderFlight = {
    ...baseFlight,
    departure: { ...base.flight.departure },
    arrival: { ...base.flight.arrival },
    airline: { ...base.flight.airline },
  };
  const fieldSources: Record<string, string> = {};
  const times: MergedFlight['times'] = [];
  const contributors = new Set<string>([base.provider]);
  const disagreements: TimeField[] = [];
  const agreements: MergedFlight['agreements'] = [];

  for (const [field, end, key] of TIME_PATHS) {
    let value: number | null = null;
    let source: string | null = null;
    let kind: TimeKind = 'scheduled';
    const agreeing: string[] = [];
    // A cancelled flight has no estimates or actual times, whatever an older picture said.
    const from = base.flight.cancelled && key !== 'scheduled' ? [base] : ordered;
    for (const picture of from) {
      const candidate = picture.flight[end][key] as number | null;
      if (candidate === null) continue;
      if (value === null) {
        value = candidate;
        source = picture.provider;
        kind = kindOf(picture.flight[end], key);
        agreeing.push(picture.provider);
      } else if (key === 'estimated') {
        // Estimates move as time passes; scheduled and actual times should agree.
      } else if (Math.abs(candidate - value) > AGREEMENT_MINUTES * 60_000) {
        if (!disagreements.includes(field)) disagreements.push(field);
      } else if (!agreeing.includes(picture.provider)) {
        agreeing.push(picture.provider);
      }
    }
    if (agreeing.length > 1 && !disagreements.includes(field)) agreements.push({ field, providers: agreeing });
    (flight[end] as unknown as Record<string, number | null>)[key] = value;
    if (source) {
      fieldSources[field] = source;
      contributors.add(source);
      times.push({ provider: source, field, kind, at: value! });
    }
  }
  for (const field of SCALARS) {
    const picture = ordered.find((p) => p.flight[field] !== null);
    if (!picture) continue;
    (flight as unknown as Record<string, unknown>)[field] = picture.flight[field];
    fieldSources[field] = picture.provider;
    contributors.add(picture.provider);
  }
  for (const key of ['name', 'iata', 'icao'] as const) {
    const picture = ordered.find((p) => p.flight.airline[key] !== null);
    if (!picture) continue;
    flight.airline[key] = picture.flight.airline[key];
    fieldSources[`airline.${key}`] = picture.provider;
    contributors.add(picture.provider);
  }
  for (const field of ['cancelled', 'diverted', 'divertedTo', 'settled', 'phase'] as const)
    fieldSources[field] = base.provider;
  // Runway times: the first picture that has one (a cancelled flight has none).
  const runwaySources: Partial<Record<'departure' | 'arrival', string>> = {};
  for (const end of ['departure', 'arrival'] as const) {
    const picture = base.flight.cancelled ? undefined : ordered.find((p) => (p.flight[end].runwayAt ?? null) !== null);
    flight[end].runwayAt = picture?.flight[end].runwayAt ?? null;
    if (picture) {
      runwaySources[end] = picture.provider;
      times.push({
        provider: picture.provider,
        field: end === 'departure' ? 'takeOff' : 'landing',
        kind: 'runway',
        at: flight[end].runwayAt!,
      });
    }
  }
  // The doubts of every picture the record's times came from.
  const timed = new Set(times.map((t) => t.provider));
  const doubted = pictures.filter((p) => timed.has(p.provider));
  const doubts = doubted.flatMap((p) => (p.flight.doubts ?? []).map((message) => ({ provider: p.provider, message })));
  // What they bear on together, weighed against the record's times by the verdict.
  const doubtWeight = doubted
    .map((p) => weightOf(p.flight))
    .reduce<DoubtWeight | null>((sum, w) => (w === null ? sum : sum === null ? w : combineWeights(sum, w)), null);

  // Evidence: a corroborating provider's take-off and landing against the record's runway times.
  const evidence: MergedFlight['evidence'] = [];
  const unconfirmed: MergedFlight['unconfirmed'] = [];
  for (const answer of all.filter((a) => a.corroborates)) {
    const seen = answer.legs[0];
    if (!seen) continue;
    // What it saw but cannot stand for a take-off or landing (OpenSky: a contact far from the airport).
    for (const message of seen.doubts ?? []) unconfirmed.push({ provider: answer.provider, message });
    for (const [field, end] of [
      ['takeOff', 'departure'],
      ['landing', 'arrival'],
    ] as const) {
      const at = seen[end].runwayAt ?? null;
      if (at === null) continue;
      const against = flight[end].runwayAt ?? null;
      evidence.push({
        provider: answer.provider,
        field,
        at,
        against: against === null ? null : { provider: runwaySources[end]!, at: against },
        agrees: against === null ? null : Math.abs(at - against) <= CORROBORATION_MINUTES * 60_000,
      });
      fieldSources[field] = answer.provider;
      contributors.add(answer.provider);
    }
  }

  const otherLegs = leading.legs
    .filter((l) => l !== chosen)
    .map((l) => ({ origin: l.departure.airport.iata, destination: l.arrival.airport.iata }));
  return {
    flight,
    providers: [...contributors],
    fieldSources,
    times,
    doubts,
    doubtWeight,
    disagreements,
    agreements,
    evidence,
    unconfirmed,
    otherLegs,
  };
}
