// The checks every provider's picture of a flight must pass before it can settle a verdict
// (docs/providers.md, "What real answers contain"). Real answers contradict themselves: a landing at
// the second of the take-off, a take-off before the aircraft left its gate, a departure two hours
// before the timetable (a track matched to the wrong flight). Such a picture still answers, with its
// contradictions said in the rationale and the confidence lowered, and it settles a record only when
// no reading of the contradicting times could change the outcome (providers/doubts.ts weighs them).
// Adapters add what only their provider's answers show (ProviderFlight.doubts); these are the checks
// that hold for every provider.
import { MINUTE, utcTime } from '../clock.js';
import { afterLanding, combineWeights, Doubts, weigh, weightOf } from '../providers/doubts.js';
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

/** The provider-neutral contradictions in one picture of a flight, one sentence each, with what each bears on. */
export function contradictions(f: ProviderFlight): Doubts {
  const out = new Doubts();
  if (f.cancelled) return out;
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
    // Times no flight can have flown: which of them is wrong cannot be told.
    if (came <= left)
      out.add(
        `The actual arrival (${utcTime(came)}) is not after the actual departure (${utcTime(left)}): the flight cannot have flown these times.`,
        'outcome',
      );
    else if (came - left > CONSISTENCY.maxFlightHours * 3_600_000)
      out.add(
        `The actual arrival (${utcTime(came)}) is more than ${CONSISTENCY.maxFlightHours} hours after the actual departure (${utcTime(left)}).`,
        'outcome',
      );
  }
  if (takeOff !== null && landing !== null && landing <= takeOff && (landing !== came || takeOff !== left)) {
    out.add(`The landing (${utcTime(landing)}) is not after the take-off (${utcTime(takeOff)}).`, 'outcome');
  }
  if (takeOff !== null && offBlock !== null) {
    if (takeOff < offBlock - tolerance)
      out.add(`The take-off (${utcTime(takeOff)}) is before the off-block time (${utcTime(offBlock)}).`, 'departure');
    else if (takeOff - offBlock > CONSISTENCY.maxTaxiOutMinutes * MINUTE)
      out.add(
        `The take-off (${utcTime(takeOff)}) is more than ${CONSISTENCY.maxTaxiOutMinutes / 60} hours after the off-block time (${utcTime(offBlock)}).`,
        'departure',
      );
  }
  // One of the landing and the on-block time is wrong: the arrival is the on-block time, or the landing and a taxi-in after it.
  if (landing !== null && onBlock !== null) {
    if (landing > onBlock + tolerance)
      out.add(
        `The landing (${utcTime(landing)}) is after the on-block time (${utcTime(onBlock)}).`,
        afterLanding(landing),
      );
    else if (onBlock - landing > CONSISTENCY.maxTaxiInMinutes * MINUTE)
      out.add(
        `The on-block time (${utcTime(onBlock)}) is more than ${CONSISTENCY.maxTaxiInMinutes / 60} hours after the landing (${utcTime(landing)}).`,
        afterLanding(landing),
      );
  }
  if (left !== null && d.scheduled !== null && left < d.scheduled - CONSISTENCY.earlyDepartureMinutes * MINUTE) {
    const minutes = Math.round((d.scheduled - left) / MINUTE);
    out.add(
      `It left ${minutes} minutes before its scheduled departure (${utcTime(left)} against ${utcTime(d.scheduled)}): the provider most likely matched another flight's track to this one.`,
      'outcome',
    );
  }
  return out;
}

/**
 * A provider's picture with the contradictions added to its own doubts. It stays settled only when
 * the provider settled it and no reading of any doubted time could change its outcome.
 */
export function checked(f: ProviderFlight): ProviderFlight {
  const found = contradictions(f).fields();
  const own = weightOf(f);
  if (!found.doubts && own === null) return f;
  const doubtWeight = own && found.doubtWeight ? combineWeights(own, found.doubtWeight) : (own ?? found.doubtWeight!);
  return {
    ...f,
    doubts: [...(f.doubts ?? []), ...(found.doubts ?? [])],
    doubtWeight,
    settled: f.settled && weigh(f, doubtWeight).holds,
  };
}
