// AeroAPI's flight row mapped to a ProviderFlight (aeroapi.ts asks; docs/providers.md, "FlightAware
// AeroAPI" and "AeroAPI in practice", says why each rule is there): the designators a row answers to,
// gate and runway times with the copies and filed plans real answers carry, and the doubts of a row
// that contradicts itself.
import { MINUTE, utcTime } from '../../clock.js';
import { isObject, normaliseDesignator, str } from '../measured.js';
import { afterLanding, Doubts, weigh, weightOf } from '../doubts.js';
import type { AirportRef, ProviderFlight } from '../types.js';
import { parseInstant } from '../zones.js';

export type Json = Record<string, unknown>;

const t = (row: Json, field: string): number | null => parseInstant(row[field]);

function airportOf(value: unknown): AirportRef {
  if (!isObject(value)) return { iata: null, icao: null };
  return { iata: str(value.code_iata)?.toUpperCase() ?? null, icao: str(value.code_icao)?.toUpperCase() ?? null };
}

/** A gate arrival normally follows the landing within minutes; two hours after it, none will come. */
const GATE_ARRIVAL_GRACE_MS = 2 * 60 * MINUTE;
/** A take-off this much later than scheduled while the gate departure equals the schedule: the gate time is a copy. */
const COPIED_GATE_OUT_LATE_MS = 15 * MINUTE;

/** A designator as a key: upper-case letters and digits, the number without leading zeros (`KL01395` = `KL1395`). */
const designatorKey = (text: string) => normaliseDesignator(text).replace(/^([A-Z0-9]{2}[A-Z]?)0+(?=\d)/, '$1');

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? normaliseDesignator(v) : '')) : [];

/**
 * Who the row is for the number asked: the flight itself (its ident, `ident_iata` or `ident_icao`),
 * a codeshare of it (the number is in `codeshares_iata` / `codeshares`, read pairwise), or neither
 * (null: not a leg of the number asked). Without a number asked (a board), the flight itself.
 */
function identityOf(
  row: Json,
  asked: string | null,
): Pick<ProviderFlight, 'flightIata' | 'flightIcao' | 'airline' | 'operating' | 'codeshares'> | null {
  const iata = str(row.ident_iata) ? normaliseDesignator(str(row.ident_iata)!) : null;
  const icao = str(row.ident_icao) ? normaliseDesignator(str(row.ident_icao)!) : null;
  const ident = str(row.ident) ? normaliseDesignator(str(row.ident)!) : null;
  const airline = {
    name: null,
    iata: str(row.operator_iata)?.toUpperCase() ?? null,
    icao: str(row.operator_icao)?.toUpperCase() ?? null,
  };
  const sharesIata = strings(row.codeshares_iata);
  const sharesIcao = strings(row.codeshares);
  // A flight listed as its own codeshare (AVA87 with codeshares ["AVA87"]) is not a codeshare of itself.
  const self = new Set([iata, icao, ident].filter((d): d is string => d !== null).map(designatorKey));
  const others = (sharesIata.length > 0 ? sharesIata : sharesIcao).filter(
    (c) => c !== '' && !self.has(designatorKey(c)),
  );
  if (asked === null || self.has(designatorKey(asked)))
    return { flightIata: iata, flightIcao: icao, airline, operating: null, codeshares: others };
  const key = designatorKey(asked);
  const i = sharesIata.findIndex((c) => c !== '' && designatorKey(c) === key);
  const j = sharesIcao.findIndex((c) => c !== '' && designatorKey(c) === key);
  if (i < 0 && j < 0) return null;
  // The two lists name the same codeshares in the same order when they are as long as each other.
  const paired = sharesIata.length === sharesIcao.length;
  const marketingIata = (i >= 0 ? sharesIata[i] : paired ? sharesIata[j] : null) ?? null;
  const marketingIcao = (j >= 0 ? sharesIcao[j] : paired ? sharesIcao[i] : null) ?? null;
  return {
    flightIata: marketingIata || null,
    flightIcao: marketingIcao || null,
    airline: {
      name: null,
      iata: marketingIata ? marketingIata.slice(0, 2) : null,
      icao: marketingIcao ? marketingIcao.slice(0, 3) : null,
    },
    operating: { flightIata: iata, flightIcao: icao, airline },
    // The other numbers sold on the flight: not the one asked, in either of its forms.
    codeshares: others.filter((c) => c !== marketingIata && c !== marketingIcao && designatorKey(c) !== key),
  };
}

/**
 * One flight from a leg and, for a diversion, its continuation: the second leg under the same
 * fa_flight_id, which leaves from the diversion airport for the booked destination. Without it the
 * leg's own destination is kept and the diversion airport is not named. `asked` is the number the
 * lookup asked (null for a board row); a row that is neither that flight nor a codeshare of it is null.
 *
 * Nothing is read from `status` (free text, localised to the account's language) or from the
 * `*_delay` fields (minus the Unix epoch on untracked legs, 0 while the runway times are late): the
 * phase and the times come from the flags and the times alone (docs/providers.md, "AeroAPI in practice").
 */
export function toFlight(
  row: Json,
  continuation: Json | null,
  observedAt: number,
  asked: string | null = null,
): ProviderFlight | null {
  const identity = identityOf(row, asked);
  if (!identity) return null;
  const diverted = row.diverted === true;
  const out = t(row, 'actual_out');
  const off = t(row, 'actual_off');
  const on = t(row, 'actual_on');
  const inn = t(row, 'actual_in');
  const sOut = t(row, 'scheduled_out');
  const sOff = t(row, 'scheduled_off');
  const sOn = t(row, 'scheduled_on');
  const sIn = t(row, 'scheduled_in');
  const doubts = new Doubts();

  // `cancelled` is AeroAPI's "no longer tracked": an airline cancellation only when the flight never
  // left (no actual out or off), whatever progress_percent and the estimates say.
  const cancelled = row.cancelled === true && out === null && off === null;
  // "Result unknown": FlightAware lost the flight and wrote the take-off time as the landing time.
  const resultUnknown = off !== null && on !== null && on === off;
  const landing = resultUnknown ? null : on;
  // A gate time equal to the runway time to the second is a copy of it, not an off- or on-block time.
  const outCopiesRunway = out !== null && out === off;
  // A gate departure equal to the schedule while the take-off is late is the schedule copied, not a time seen.
  const outCopiesSchedule =
    out !== null &&
    !outCopiesRunway &&
    out === sOut &&
    off !== null &&
    sOff !== null &&
    off - sOff >= COPIED_GATE_OUT_LATE_MS;
  const inCopiesRunway = inn !== null && inn === on;
  const gateOut = outCopiesRunway || outCopiesSchedule ? null : out;
  const gateIn = inCopiesRunway ? null : inn;
  const departed = gateOut ?? off;
  const arrived = gateIn ?? landing;

  // The airline's timetable is the gate schedule (`scheduled_out` / `scheduled_in`); without it the
  // runway schedule is the filed flight plan, and on adhoc flights a copy of the actual times.
  const scheduledDeparture = sOut ?? sOff;
  const scheduledArrival = sIn ?? sOn;
  const copied = [
    sOut === null && sOff !== null && sOff === off ? `take-off at ${utcTime(sOff)}` : null,
    sIn === null && sOn !== null && sOn === on ? `landing at ${utcTime(sOn)}` : null,
  ].filter((c): c is string => c !== null);
  const filedDeparture = sOut === null && sOff !== null && sOff !== off;
  const filedArrival = sIn === null && sOn !== null && sOn !== on;
  if (copied.length > 0)
    doubts.add(
      `The schedule is a copy of the actual times (${copied.join(', ')}), so no delay can be measured.`,
      'outcome',
    );
  if (filedDeparture && filedArrival) {
    doubts.add(
      `The schedule is the filed flight plan (take-off ${utcTime(sOff!)}, landing ${utcTime(sOn!)}), not the airline's timetable, so no delay can be measured.`,
      'outcome',
    );
  } else if (filedDeparture) {
    doubts.add(
      `The departure schedule is the filed flight plan's take-off ${utcTime(sOff!)}, not the airline's timetable, so no departure delay can be measured.`,
      'departure',
    );
  } else if (filedArrival) {
    doubts.add(
      `The arrival schedule is the filed flight plan's landing ${utcTime(sOn!)}, not the airline's timetable, so no arrival delay can be measured.`,
      'outcome',
    );
  }
  if (!cancelled && resultUnknown) {
    doubts.add(
      `The landing time equals the take-off time (${utcTime(off!)}), FlightAware's mark of a flight whose result is unknown, so no arrival is known.`,
      'outcome',
    );
  }
  const origin = airportOf(row.origin);
  const destination = airportOf(row.destination);
  if (origin.icao !== null && origin.icao === destination.icao) {
    doubts.add(
      `The flight leaves from and arrives at the same airport (${origin.iata ?? origin.icao}), so it is not a scheduled route.`,
      'outcome',
    );
  }
  if (!cancelled && outCopiesSchedule) {
    doubts.add(
      `The gate departure time equals the schedule (${utcTime(out!)}) while the runway time shows a take-off at ${utcTime(off!)}, ${Math.round((off! - sOff!) / MINUTE)} minutes after the scheduled take-off; the runway time is used.`,
      'departure',
    );
  }
  // The on-block time not known, the landing is used: the arrival was at the landing or a taxi-in after it.
  const gateUnknown =
    !cancelled &&
    landing !== null &&
    gateIn === null &&
    (inCopiesRunway || (sIn !== null && observedAt - landing > GATE_ARRIVAL_GRACE_MS));
  if (gateUnknown && inCopiesRunway) {
    doubts.add(
      `The gate arrival time is a copy of the landing time (${utcTime(on!)}), so the on-block time is not known; the landing time is used.`,
      afterLanding(landing),
    );
  } else if (gateUnknown) {
    doubts.add(
      `No gate arrival time was recorded although the flight landed at ${utcTime(landing)}; the landing time is used.`,
      afterLanding(landing),
    );
  }
  if (!cancelled && !diverted && !resultUnknown && arrived === null && row.progress_percent === 100) {
    doubts.add('FlightAware reports the flight complete (progress 100 %) but gives no arrival time.', 'outcome');
  }

  const booked = diverted && continuation ? airportOf(continuation.destination) : destination;
  const phase = cancelled
    ? 'cancelled'
    : diverted
      ? 'diverted'
      : arrived !== null
        ? 'landed'
        : resultUnknown
          ? 'unknown'
          : departed !== null
            ? 'departed'
            : 'scheduled';
  const registration = str(row.registration)?.toUpperCase() ?? null;
  const type = str(row.aircraft_type)?.toUpperCase() ?? null;
  const estimatedDeparture = cancelled ? null : (t(row, 'estimated_out') ?? t(row, 'estimated_off'));
  const estimatedArrival = cancelled ? null : (t(row, 'estimated_in') ?? t(row, 'estimated_on'));
  const actualDeparture = cancelled ? null : departed;
  const actualArrival = cancelled ? null : arrived;
  const flight: Omit<ProviderFlight, 'settled'> = {
    provider: 'aeroapi',
    ...identity,
    callsign: str(row.atc_ident)?.toUpperCase() ?? str(row.ident_icao)?.toUpperCase() ?? null,
    operation: row.type === 'General_Aviation' ? 'private' : 'passenger',
    departure: {
      airport: origin,
      scheduled: scheduledDeparture,
      estimated: estimatedDeparture,
      ...(estimatedDeparture !== null ? { estimatedKind: 'estimated' as const } : {}),
      actual: actualDeparture,
      ...(actualDeparture !== null ? { actualKind: gateOut !== null ? ('block' as const) : ('runway' as const) } : {}),
      runway: str(row.actual_runway_off),
      runwayAt: cancelled ? null : off,
    },
    arrival: {
      airport: booked,
      scheduled: scheduledArrival,
      estimated: estimatedArrival,
      ...(estimatedArrival !== null ? { estimatedKind: 'estimated' as const } : {}),
      actual: actualArrival,
      ...(actualArrival !== null ? { actualKind: gateIn !== null ? ('block' as const) : ('runway' as const) } : {}),
      runway: landing !== null ? str(row.actual_runway_on) : null,
      runwayAt: cancelled ? null : landing,
    },
    divertedTo: diverted && continuation ? airportOf(continuation.origin) : null,
    phase,
    cancelled,
    diverted,
    statusRaw: str(row.status),
    aircraft: registration || type ? { registration, icao24: null, typeIcao: type, typeIata: null, label: null } : null,
    observedAt,
    ...doubts.fields(),
  };
  // Cancelled before it left, or on blocks (at the diversion airport, for a diversion), or landed with
  // the on-block time unknown; and no reading of a doubted time could change the outcome.
  const final = cancelled || gateIn !== null || gateUnknown;
  return { ...flight, settled: final && weigh(flight, weightOf(flight)).holds };
}

/** A position-only track (`position_only`: no flight plan, often no destination) is not a leg of a flight. */
export const isTrackOnly = (row: Json) => row.position_only === true;
