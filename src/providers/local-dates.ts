// Providers that file flights under the departure airport's local date (AeroDataBox, aviationstack)
// asked for the flight date of this service, the scheduled departure date in UTC (spec 4.1). A leg
// of the UTC date can be in the local file of that date or of the day on the airport's side of
// Greenwich (the day after east of it, the day before west), so both adapters follow one rule:
// - the lookup names its origin: the UTC date's file, then, only when the leg is not in it, the
//   neighbour on the origin's side (one request for most lookups);
// - it does not: the UTC date's file, then the neighbours on the sides of the departure airports it
//   shows, or both neighbours when it shows none.
// The legs whose scheduled departure falls on the UTC date (and on the lookup's route) are kept.
import type { AirportRef, Answer, FlightLookup, ProviderError, ProviderFlight } from './types.js';
import { addDays, offsetMinutes, utcDate } from './zones.js';

/** The airport is the one the lookup names (IATA or ICAO), or the lookup names none. */
export const matchesAirport = (airport: AirportRef, code: string | null | undefined): boolean =>
  !code || airport.iata === code.toUpperCase() || airport.icao === code.toUpperCase();

export type LocalFile<Row> = { outcome: 'rows'; rows: Row[] } | { outcome: 'error'; error: ProviderError };

export async function legsOnUtcDate<Row>(
  lookup: FlightLookup,
  o: {
    /** The zone of the lookup's origin, when it names one the reference airports know. */
    originZone: string | null;
    /** One local date's file of the number. */
    file: (localDate: string) => Promise<LocalFile<Row>>;
    toFlight: (row: Row) => ProviderFlight | null;
    /** The UTC offset (minutes) of the row's departure airport, as the provider gives it. */
    offsetOf: (row: Row, flight: ProviderFlight | null) => number | null;
  },
): Promise<Answer<ProviderFlight[]>> {
  const date = lookup.flightDate;
  const side = (offset: number) => (offset > 0 ? addDays(date, 1) : offset < 0 ? addDays(date, -1) : null);
  const wanted = (f: ProviderFlight | null): f is ProviderFlight =>
    f !== null &&
    f.departure.scheduled !== null &&
    utcDate(f.departure.scheduled) === date &&
    matchesAirport(f.departure.airport, lookup.origin) &&
    matchesAirport(f.arrival.airport, lookup.destination);

  const first = await o.file(date);
  if (first.outcome === 'error') return first;
  const flights = first.rows.map((row) => o.toFlight(row));
  let more: (string | null)[];
  if (o.originZone) more = flights.some(wanted) ? [] : [side(offsetMinutes(o.originZone, Date.parse(`${date}T12:00:00Z`)))];
  else if (first.rows.length === 0) more = [addDays(date, -1), addDays(date, 1)];
  else more = first.rows.map((row, i) => side(o.offsetOf(row, flights[i]!) ?? 0));
  const answers = await Promise.all([...new Set(more.filter((d): d is string => d !== null))].map((d) => o.file(d)));
  for (const answer of answers) {
    if (answer.outcome === 'error') return answer;
    flights.push(...answer.rows.map((row) => o.toFlight(row)));
  }

  const seen = new Set<string>();
  const legs: ProviderFlight[] = [];
  for (const flight of flights) {
    if (!wanted(flight)) continue;
    const key = `${flight.departure.scheduled}|${flight.departure.airport.icao ?? flight.departure.airport.iata}|${flight.flightIata ?? flight.flightIcao}`;
    if (seen.has(key)) continue;
    seen.add(key);
    legs.push(flight);
  }
  if (legs.length === 0) return { outcome: 'miss' };
  legs.sort((a, b) => a.departure.scheduled! - b.departure.scheduled!);
  return { outcome: legs.every((f) => f.settled) ? 'hit' : 'incomplete', value: legs };
}
