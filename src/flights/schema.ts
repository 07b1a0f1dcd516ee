// The flight status response (spec 2.1), as the OpenAPI document describes it and as responses are
// serialised. The flight lookup issue fills it; the shape is fixed here with the spec.
import { Type, type Static } from 'typebox';
import { DateTime, Envelope } from '../http/schemas.js';

const NullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });
const NullableTime = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });
const NullableNumber = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

/** A closed set of strings, typed as their union. */
const Literals = <const T extends readonly string[]>(values: T, description: string) =>
  Type.Unsafe<T[number]>(Type.Union(values.map((v) => Type.Literal(v)), { description }));

export const FLIGHT_STATUSES = ['delayed', 'cancelled', 'diverted', 'on_time', 'not_found'] as const;

export const FlightRecord = Type.Object(
  {
    found: Type.Boolean({ description: 'The flight was matched' }),
    complete: Type.Boolean({ description: 'Enough timings were present to settle the record' }),
    status: Literals(FLIGHT_STATUSES, 'Classified outcome (not_found never appears: a flight not found has selected: null)'),
    isDelayed: Type.Boolean({ description: 'Arrival delay is greater than zero' }),
    isCancelled: Type.Boolean({ description: 'The flight never operated' }),
    isDiverted: Type.Boolean({ description: 'Landed somewhere other than the destination' }),
    delayMinutes: NullableNumber('Arrival delay in minutes'),
    departureDelayMinutes: NullableNumber('Departure delay in minutes'),
    originIata: NullableString('Departure airport of the record'),
    destinationIata: NullableString('Arrival airport of the record'),
    scheduledDeparture: NullableTime('Scheduled departure (UTC)'),
    scheduledArrival: NullableTime('Scheduled arrival (UTC)'),
    estimatedDeparture: NullableTime('Estimated departure (UTC)'),
    estimatedArrival: NullableTime('Estimated arrival (UTC)'),
    actualDeparture: NullableTime('Actual departure (UTC)'),
    actualArrival: NullableTime('Actual arrival (UTC)'),
    airline: Type.Union(
      [
        Type.Object({ name: NullableString('Airline name'), iata: NullableString('IATA code'), icao: NullableString('ICAO code') }),
        Type.Null(),
      ],
      { description: 'Operating airline' },
    ),
    aircraft: Type.Union([
      Type.Object({
        registration: NullableString('Tail number'),
        iata: NullableString('IATA type code'),
        icao: NullableString('ICAO type code'),
        icao24: NullableString('ICAO 24-bit address, hex'),
        label: NullableString('Type name'),
      }),
      Type.Null(),
    ]),
    flightIata: NullableString('Normalised IATA designator'),
    flightIcao: NullableString('Normalised ICAO designator'),
    statusRaw: NullableString('Raw status text from the provider, unmodified'),
    source: Type.String({ description: 'Provider the record came from (the settled one when several answered); per-field sources are in data.sources' }),
  },
  { description: 'The normalised flight record' },
);

export const FlightDelay = Type.Object(
  {
    delayMinutes: Type.Number({ description: 'Arrival delay in minutes (the departure delay when no arrival time is known; 0 when the flight never arrived)' }),
    delayFormatted: Type.String({ description: 'e.g. `3h 12m`, `45m`, `-7m` (early)' }),
    statusKind: Literals(
      ['early', 'on_time', 'minor_delay', 'significant_delay', 'long_delay', 'cancelled', 'diverted'],
      'early (< 0), on_time (0–14 min), minor_delay (15–59), significant_delay (60–179), long_delay (180+), cancelled, diverted',
    ),
    disruption: Type.Object({
      type: Literals(['none', 'delay', 'cancellation', 'diversion'], 'What disrupted the flight'),
      isCancelled: Type.Boolean(),
      isDiverted: Type.Boolean(),
      neverArrived: Type.Boolean({ description: 'Cancelled or diverted: it never reached its destination' }),
      arrivalDelayMinutes: Type.Number({ description: '0 when no arrival time is known' }),
      departureDelayMinutes: Type.Number({ description: '0 when no departure time is known' }),
      confidence: Literals(['high', 'medium', 'low'], 'high: actual times seen and sources agree; medium: estimates, or sources disagree; low: departure only'),
      sources: Type.Array(Type.String(), { description: 'Providers that contributed to the record, the record\'s own first' }),
      rationale: Type.Array(Type.String(), { description: 'Plain sentences: what was observed and why the verdict follows' }),
    }),
  },
  { description: 'Delay and disruption verdict with rationale' },
);

const SourceEntry = Type.Object({
  provider: Type.String({ description: 'Provider name, e.g. `sim`' }),
  outcome: Literals(['hit', 'incomplete', 'miss', 'skipped', 'error'], 'What the provider answered'),
  durationMs: Type.Number({ description: 'Time the call took; 0 when skipped' }),
  fields: Type.Array(Type.String(), { description: 'Record fields taken from this provider' }),
  error: Type.Union([Type.Object({ kind: Type.String(), message: Type.String() }), Type.Null()]),
});

const Proof = Type.Object(
  {
    mediaType: Type.Literal('image/png'),
    encoding: Type.Literal('base64'),
    width: Type.Integer(),
    height: Type.Integer(),
    sha256: Type.String({ description: 'SHA-256 of the PNG bytes, hex' }),
    producedAt: DateTime('When the image was rendered'),
    data: Type.String({ description: 'The PNG, base64' }),
  },
  { description: 'With screenshot=1: the rendered proof image of the record; never stored' },
);

export const FlightStatusData = Type.Object({
  flightNumber: Type.String({ description: 'The requested designator, upper-cased' }),
  flightDate: Type.String({ description: 'The requested date, YYYY-MM-DD' }),
  originIata: NullableString('Resolved departure airport'),
  destinationIata: NullableString('Resolved arrival airport'),
  selected: Type.Union([FlightRecord, Type.Null()], { description: 'The normalised record; null when nothing was found' }),
  flightDelay: Type.Union([FlightDelay, Type.Null()]),
  meta: Type.Object({
    durationMs: Type.Number({ description: 'Wall clock of the whole resolve; 0 on a replay' }),
    startedAt: DateTime('When the resolve started'),
    finishedAt: DateTime('When the resolve finished'),
    cached: Type.Boolean({ description: 'Served from the stored record' }),
    persisted: Type.Boolean({ description: 'This response was written to the record table' }),
    recordId: Type.Null({ description: 'Always null on the public endpoint' }),
    source: NullableString('Provider of the record'),
  }),
  sources: Type.Array(SourceEntry, { description: 'Every configured provider, in order, and what it answered' }),
  proof: Type.Optional(Proof),
});
export type FlightStatusData = Static<typeof FlightStatusData>;

export const FlightStatusResponse = Envelope(FlightStatusData, 'The resolved flight');
