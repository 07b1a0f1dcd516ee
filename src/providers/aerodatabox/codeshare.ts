// A codeshare row (IsCodeshared) resolved to its operating flight: the one row of a board that matches
// it, and the record the lookup answers with, or the codeshare kept as it is, never settled, saying why.
import type { AirportRef, Direction, ProviderFlight } from '../types.js';

/** Whether two airports are the same: null when either gives no code to compare. */
export function sameAirport(a: AirportRef, b: AirportRef): boolean | null {
  if (a.icao && b.icao) return a.icao === b.icao;
  if (a.iata && b.iata) return a.iata === b.iata;
  return null;
}

const otherEnd = (end: Direction): Direction => (end === 'departure' ? 'arrival' : 'departure');

/**
 * The operating row of a codeshare among a board's rows (read at the codeshare's `end`): the same
 * scheduled time there, and the same other airport or other scheduled time, nothing that differs
 * (the aircraft neither). Exactly one, or none.
 */
export function operatorOf(
  codeshare: ProviderFlight,
  end: Direction,
  candidates: ProviderFlight[],
): ProviderFlight | null {
  const other = otherEnd(end);
  const found = candidates.filter((op) => {
    if (op.flightIata === codeshare.flightIata && op.flightIcao === codeshare.flightIcao) return false;
    if (
      op[end].scheduled !== codeshare[end].scheduled ||
      sameAirport(op[end].airport, codeshare[end].airport) === false
    )
      return false;
    const checks = [
      op[other].scheduled !== null && codeshare[other].scheduled !== null
        ? op[other].scheduled === codeshare[other].scheduled
        : null,
      sameAirport(op[other].airport, codeshare[other].airport),
    ];
    const regs = [op.aircraft?.registration, codeshare.aircraft?.registration];
    if (regs[0] && regs[1] && regs[0] !== regs[1]) return false;
    return !checks.includes(false) && checks.includes(true);
  });
  return found.length === 1 ? found[0]! : null;
}

/** The codeshare's record with the operating flight's status and times; the designator stays the one asked. */
export function asMarketing(codeshare: ProviderFlight, op: ProviderFlight): ProviderFlight {
  const fill = (a: AirportRef, b: AirportRef): AirportRef => ({ iata: a.iata ?? b.iata, icao: a.icao ?? b.icao });
  const digits = (op.flightIata ?? op.flightIcao ?? '').replace(/^[A-Z0-9]{2}(?=\d)|^[A-Z]{3}(?=\d)/, '');
  return {
    ...op,
    flightIata: codeshare.flightIata,
    flightIcao: codeshare.flightIcao,
    airline: codeshare.airline,
    operating: {
      flightIata: op.flightIata,
      flightIcao: op.flightIcao ?? (op.airline.icao && digits ? `${op.airline.icao}${digits}` : null),
      airline: op.airline,
    },
    departure: { ...op.departure, airport: fill(op.departure.airport, codeshare.departure.airport) },
    arrival: { ...op.arrival, airport: fill(op.arrival.airport, codeshare.arrival.airport) },
  };
}

/** A codeshare row kept as it is: never settled, saying why. */
export function unresolved(codeshare: ProviderFlight, why: string): ProviderFlight {
  const number = codeshare.flightIata ?? codeshare.flightIcao ?? 'the number';
  const doubts = [
    ...(codeshare.doubts ?? []),
    `${number} is a codeshare whose operating flight ${why}; a codeshare row's status and times lag the operating flight's, so it cannot settle the flight.`,
  ];
  if (codeshare.departure.scheduled === null) doubts.push('The codeshare row gives no departure time.');
  return { ...codeshare, settled: false, doubts, doubtWeight: { timesOnly: false, arrival: null } };
}
