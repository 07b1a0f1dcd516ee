// Providers that file flights under the departure airport's local date (AeroDataBox, aviationstack)
// asked for the flight date of this service, the scheduled departure date in UTC (docs/flight-lookup.md, "The date"). A leg
// of the UTC date can be in the local file of that date or of the day on the airport's side of
// Greenwich (the day after east of it, the day before west), so both adapters follow one rule:
// - the lookup names its origin: the UTC date's file, then, only when the leg is not in it, the
//   neighbour on the origin's side (one request for most lookups);
// - it does not: the UTC date's file, then the neighbours on the sides of the departure airports it
//   shows, or both neighbours when it shows none.
// The legs whose scheduled departure falls on the UTC date (and on the lookup's route) are kept.
// Two options serve real AeroDataBox answers (docs/providers.md, "AeroDataBox in practice"): a
// codeshare row can give no departure time at all, and a FIDS-born row can leave an airport without
// any code; both still name a flight the lookup must find.
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
    /**
     * Keep a leg without a scheduled departure when it is in the UTC date's own file (and, when it
     * gives a scheduled arrival, that arrival is on the UTC date or the day after); such legs sort
     * last. Off by default.
     */
    keepUndated?: boolean;
    /** An airport given without any code matches the lookup's airport (it cannot contradict it). Off by default. */
    codelessAirportsMatch?: boolean;
  },
): Promise<Answer<ProviderFlight[]>> {
  const date = lookup.flightDate;
  const side = (offset: number) => (offset > 0 ? addDays(date, 1) : offset < 0 ? addDays(date, -1) : null);
  const matches = (airport: AirportRef, code: string | null | undefined) =>
    matchesAirport(airport, code) ||
    (o.codelessAirportsMatch === true && airport.iata === null && airport.icao === null);
  const onRoute = (f: ProviderFlight) =>
    matches(f.departure.airport, lookup.origin) && matches(f.arrival.airport, lookup.destination);
  const dated = (f: ProviderFlight | null): f is ProviderFlight =>
    f !== null && f.departure.scheduled !== null && utcDate(f.departure.scheduled) === date && onRoute(f);
  const undated = (f: ProviderFlight | null): f is ProviderFlight =>
    f !== null &&
    o.keepUndated === true &&
    f.departure.scheduled === null &&
    (f.arrival.scheduled === null || [date, addDays(date, 1)].includes(utcDate(f.arrival.scheduled))) &&
    onRoute(f);

  // A local date an earlier answer showed is asked first; the usual files only when the leg is not in it.
  const hint = lookup.localDate && /^\d{4}-\d{2}-\d{2}$/.test(lookup.localDate) ? lookup.localDate : null;
  const first = await o.file(hint ?? date);
  if (first.outcome === 'error') return first;
  const flights = first.rows.map((row) => o.toFlight(row));
  const own = new Set(hint && hint !== date ? [] : flights);
  const wanted = (f: ProviderFlight | null): f is ProviderFlight => dated(f) || (own.has(f) && undated(f));
  let more: (string | null)[];
  if (hint && hint !== date)
    more = flights.some(dated) ? [] : [date, addDays(date, -1), addDays(date, 1)].filter((d) => d !== hint);
  else if (o.originZone)
    more = flights.some(dated) ? [] : [side(offsetMinutes(o.originZone, Date.parse(`${date}T12:00:00Z`)))];
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
  legs.sort((a, b) => (a.departure.scheduled ?? Infinity) - (b.departure.scheduled ?? Infinity));
  return { outcome: legs.every((f) => f.settled) ? 'hit' : 'incomplete', value: legs };
}
