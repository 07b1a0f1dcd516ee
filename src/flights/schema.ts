// The flight status response (spec 2.1), as the OpenAPI document describes it and as responses are
// serialised. The flight lookup issue fills it; the shape is fixed here with the spec.
import { Type, type Static } from 'typebox';
import { DateTime, Envelope } from '../http/schemas.js';

const NullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });
const NullableTime = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });
const NullableNumber = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

export const FLIGHT_STATUSES = ['delayed', 'cancelled', 'diverted', 'on_time', 'not_found'] as const;

export const FlightRecord = Type.Object(
  {
    found: Type.Boolean({ description: 'The flight was matched' }),
    complete: Type.Boolean({ description: 'Enough timings were present to settle the record' }),
    status: Type.Union(FLIGHT_STATUSES.map((s) => Type.Literal(s)), { description: 'Classified outcome' }),
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
    source: NullableString('Provider that supplied the record'),
  },
  { description: 'The normalised flight record' },
);

export const FlightDelay = Type.Object(
  {
    delayMinutes: Type.Number(),
    delayFormatted: Type.String({ description: 'e.g. `3h 12m`' }),
    statusKind: Type.String(),
    disruption: Type.Object({
      type: Type.String(),
      isCancelled: Type.Boolean(),
      isDiverted: Type.Boolean(),
      neverArrived: Type.Boolean(),
      arrivalDelayMinutes: Type.Number(),
      departureDelayMinutes: Type.Number(),
      confidence: Type.String(),
      sources: Type.Array(Type.String()),
      rationale: Type.Array(Type.String()),
    }),
  },
  { description: 'Delay and disruption verdict with rationale' },
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
  sources: Type.Array(Type.Unknown(), { description: 'Providers asked and what each answered' }),
});
export type FlightStatusData = Static<typeof FlightStatusData>;

export const FlightStatusResponse = Envelope(FlightStatusData, 'The resolved flight');
