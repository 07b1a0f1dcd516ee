// The checks every provider's picture of a flight must pass before it can settle a verdict
// (docs/providers.md, "What real answers contain"). Real answers contradict themselves: a landing at
// the second of the take-off, a take-off before the aircraft left its gate, a departure two hours
// before the timetable (a track matched to the wrong flight). Such a picture still answers, with its
// contradictions said in the rationale and the confidence lowered, but it never settles a record.
// Adapters add what only their provider's answers show (ProviderFlight.doubts); these are the checks
// that hold for every provider.
import { MINUTE, utcTime } from '../clock.js';
import type { ProviderFlight } from '../providers/types.js';

/** Bounds on a real flight, each generous enough that no scheduled flight falls outside it. */
export const CONSISTENCY = {
  /** Providers write minutes: two times of one instant may differ by one. */
  toleranceMinutes: 1,
  /** Airlines do not leave this long before the timetable; a provider that says so matched the wrong flight. */
  earlyDepartureMinutes: 60,
  /** Off-block to take-off (the longest de-icing queues are about two hours). */
  maxTaxiOutMinutes: 180,
  /** Landing to on-block. */
  maxTaxiInMinutes: 120,
  /** Departure to arrival: the longest scheduled flights take about 19 hours gate to gate. */
  maxFlightHours: 24,
} as const;


/** The provider-neutral contradictions in one picture of a flight, one sentence each (none: consistent). */
export function contradictions(f: ProviderFlight): string[] {
  if (f.cancelled) return [];
  const out: string[] = [];
  const d = f.departure;
  const a = f.arrival;
  const tolerance = CONSISTENCY.toleranceMinutes * MINUTE;
  const offBlock = d.actual !== null && d.actualKind !== 'runway' ? d.actual : null;
  const onBlock = a.actual !== null && a.actualKind !== 'runway' ? a.actual : null;
  const takeOff = d.runwayAt ?? (d.actualKind === 'runway' ? d.actual : null);
  const landing = a.runwayAt ?? (a.actualKind === 'runway' ? a.actual : null);
  const left = offBlock ?? takeOff;
  const came = onBlock ?? landing;

  if (left !== null && came !== null) {
    if (came <= left) out.push(`The actual arrival (${utcTime(came)}) is not after the actual departure (${utcTime(left)}): the flight cannot have flown these times.`);
    else if (came - left > CONSISTENCY.maxFlightHours * 3_600_000)
      out.push(`The actual arrival (${utcTime(came)}) is more than ${CONSISTENCY.maxFlightHours} hours after the actual departure (${utcTime(left)}).`);
  }
  if (takeOff !== null && landing !== null && landing <= takeOff && (landing !== came || takeOff !== left)) {
    out.push(`The landing (${utcTime(landing)}) is not after the take-off (${utcTime(takeOff)}).`);
  }
  if (takeOff !== null && offBlock !== null) {
    if (takeOff < offBlock - tolerance) out.push(`The take-off (${utcTime(takeOff)}) is before the off-block time (${utcTime(offBlock)}).`);
    else if (takeOff - offBlock > CONSISTENCY.maxTaxiOutMinutes * MINUTE)
      out.push(`The take-off (${utcTime(takeOff)}) is more than ${CONSISTENCY.maxTaxiOutMinutes / 60} hours after the off-block time (${utcTime(offBlock)}).`);
  }
  if (landing !== null && onBlock !== null) {
    if (landing > onBlock + tolerance) out.push(`The landing (${utcTime(landing)}) is after the on-block time (${utcTime(onBlock)}).`);
    else if (onBlock - landing > CONSISTENCY.maxTaxiInMinutes * MINUTE)
      out.push(`The on-block time (${utcTime(onBlock)}) is more than ${CONSISTENCY.maxTaxiInMinutes / 60} hours after the landing (${utcTime(landing)}).`);
  }
  if (left !== null && d.scheduled !== null && left < d.scheduled - CONSISTENCY.earlyDepartureMinutes * MINUTE) {
    const minutes = Math.round((d.scheduled - left) / MINUTE);
    out.push(
      `It left ${minutes} minutes before its scheduled departure (${utcTime(left)} against ${utcTime(d.scheduled)}): the provider most likely matched another flight's track to this one.`,
    );
  }
  return out;
}

/**
 * A provider's picture with the contradictions added to its own doubts: a picture with any doubt is
 * not settled, whatever the provider said.
 */
export function checked(f: ProviderFlight): ProviderFlight {
  const doubts = [...(f.doubts ?? []), ...contradictions(f)];
  if (doubts.length === 0) return f;
  return { ...f, doubts, settled: false };
}
