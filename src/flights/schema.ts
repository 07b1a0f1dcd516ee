// The flight status response (docs/flight-lookup.md), as the OpenAPI document describes it and as responses are
// serialised. The flight lookup issue fills it; the shape is fixed here with the spec.
import { Type, type Static, type TSchema } from 'typebox';
import { DateTime, Envelope, ErrorResponse } from '../http/schemas.js';
import { AssessmentSchema } from '../compensation/schema.js';
import { CircumstancesSchema } from '../circumstances/schema.js';

// Nullable values are type arrays (`["string", "null"]`), not anyOf unions: the response serialiser
// (fast-json-stringify) writes a type array directly but has to run a validator over every anyOf
// branch to choose one, which cost a replayed lookup a third of its time.
const NullableString = (description: string) => Type.Unsafe<string | null>({ type: ['string', 'null'], description });
const NullableTime = (description: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time', description });
const NullableNumber = (description: string) => Type.Unsafe<number | null>({ type: ['number', 'null'], description });
const Nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: ['object', 'null'], ...(description ? { description } : {}) });

/** A closed set of strings, typed as their union. */
const Literals = <const T extends readonly string[]>(values: T, description: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], description });

export const FLIGHT_STATUSES = ['delayed', 'cancelled', 'diverted', 'on_time', 'not_found'] as const;

export const FlightRecord = Type.Object(
  {
    found: Type.Boolean({ description: 'The flight was matched' }),
    complete: Type.Boolean({
      description:
        'Enough timings were present to settle the record, and no provider whose times it uses contradicts itself',
    }),
    status: Literals(
      FLIGHT_STATUSES,
      'Classified outcome (not_found never appears: a flight not found has selected: null)',
    ),
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
    airline: Nullable(
      Type.Object({
        name: NullableString('Airline name'),
        iata: NullableString('IATA code'),
        icao: NullableString('ICAO code'),
      }),
      'Operating airline (the marketing one for a codeshare number)',
    ),
    aircraft: Nullable(
      Type.Object({
        registration: NullableString('Tail number'),
        iata: NullableString('IATA type code'),
        icao: NullableString('ICAO type code'),
        icao24: NullableString('ICAO 24-bit address, hex'),
        label: NullableString('Type name'),
      }),
      'The aircraft, when a provider named it',
    ),
    flightIata: NullableString('Normalised IATA designator'),
    flightIcao: NullableString('Normalised ICAO designator'),
    statusRaw: NullableString('Raw status text from the provider, unmodified'),
    source: Type.String({
      description:
        'Provider the record came from (the settled one when several answered); per-field sources are in data.sources',
    }),
  },
  { description: 'The normalised flight record' },
);

export const FlightDelay = Type.Object(
  {
    delayMinutes: Type.Number({
      description:
        'Arrival delay in minutes (the departure delay when no arrival time is known; 0 when the flight never arrived)',
    }),
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
      confidence: Literals(
        ['high', 'medium', 'low'],
        'high: actual times seen and sources agree; medium: estimates, or sources disagree; low: departure only; a provider that contradicts itself lowers it one level',
      ),
      sources: Type.Array(Type.String(), {
        description: "Providers that contributed to the record, the record's own first",
      }),
      rationale: Type.Array(Type.String(), {
        description: 'Plain sentences: what was observed and why the verdict follows',
      }),
    }),
  },
  { description: 'Delay and disruption verdict with rationale' },
);

const SourceEntry = Type.Object({
  provider: Type.String({
    description:
      "Provider name: `sim`, `aerodatabox`, `aeroapi`, `aviationstack` or `opensky`; in a batch's answers also `boards`: the flight as the watched airports' boards showed it final, no provider asked (docs/batches.md)",
  }),
  outcome: Literals(['hit', 'incomplete', 'miss', 'skipped', 'error'], 'What the provider answered'),
  durationMs: Type.Number({ description: 'Time the call took; 0 when skipped' }),
  fields: Type.Array(Type.String(), {
    description:
      'Record fields taken from this provider; for a corroborating provider (OpenSky), `takeOff` and `landing`: the evidence it gave',
  }),
  times: Type.Optional(
    Type.Array(
      Type.Object({
        field: Type.String({
          description:
            "The record's time field (`scheduledDeparture` … `actualArrival`), or `takeOff` / `landing` for a runway time",
        }),
        kind: Literals(
          ['block', 'runway', 'revised', 'estimated', 'scheduled'],
          "block: off- or on-block (gate); runway: take-off or landing, standing in for a missing block time when the field is an actual one; revised: an estimate the airline or airport revised; estimated: the provider's own estimate; scheduled: the timetable",
        ),
        at: DateTime('The time (UTC)'),
      }),
      {
        description:
          'Each time of the record this provider supplied and what kind of time it is (docs/providers.md, "What real answers contain"); absent on records stored before it was recorded',
      },
    ),
  ),
  error: Nullable(Type.Object({ kind: Type.String(), message: Type.String() }), 'Why the call failed (outcome error)'),
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

const LocalEnd = Type.Object(
  {
    airport: NullableString('The airport (IATA)'),
    timezone: NullableString(
      'Its IANA time zone; null when the reference data does not know the airport (then every time here is null)',
    ),
    scheduled: NullableString(
      "`selected`'s scheduled time at this end, as the airport's clock read it, with its UTC offset: `2026-12-02T00:05:00+01:00`",
    ),
    estimated: NullableString('The same for the estimated time'),
    actual: NullableString('The same for the actual time'),
  },
  { additionalProperties: false },
);

export const LocalTimes = Type.Object(
  { departure: LocalEnd, arrival: LocalEnd },
  {
    title: 'LocalTimes',
    description:
      "Addition to spec 2.1: `selected`'s times at the airports' clocks, with the zone, beside the UTC fields (which are unchanged); null when nothing was found; absent on records stored before it was given",
  },
);
export type LocalTimes = Static<typeof LocalTimes>;

export const FlightStatusData = Type.Object(
  {
    flightNumber: Type.String({ description: 'The requested designator, upper-cased' }),
    flightDate: Type.String({ description: 'The requested date, YYYY-MM-DD' }),
    dateBasis: Type.Optional(
      Type.Union([Type.Literal('utc'), Type.Literal('local')], {
        description:
          "Addition to spec 2.1: what flightDate is, as the request said (`dateBasis`): `utc` (the default) or `local`, the departure airport's local date",
      }),
    ),
    originIata: NullableString('Resolved departure airport'),
    destinationIata: NullableString('Resolved arrival airport'),
    selected: Nullable(FlightRecord, 'The normalised record; null when nothing was found'),
    flightDelay: Nullable(FlightDelay, 'The verdict; null when not found or no timing is known'),
    compensation: Nullable(
      AssessmentSchema,
      'Addition to spec 2.1: the EU261 / UK261 assessment of a settled (complete) record, as GET /api/v1/compensation gives it; null otherwise',
    ),
    circumstances: Type.Optional(
      Nullable(
        CircumstancesSchema,
        'Addition to spec 2.1: why a settled (complete) flight 3 hours or more late, cancelled or diverted was disrupted, with the evidence; null for other records; absent on records stored before it was given',
      ),
    ),
    meta: Type.Object({
      durationMs: Type.Number({ description: 'Wall clock of the whole resolve; 0 on a replay' }),
      startedAt: DateTime('When the resolve started'),
      finishedAt: DateTime('When the resolve finished'),
      cached: Type.Boolean({ description: 'Served from the stored record' }),
      persisted: Type.Boolean({ description: 'This response was written to the record table' }),
      recordId: Type.Null({ description: 'Always null on the public endpoint' }),
      source: NullableString('Provider of the record'),
    }),
    localTimes: Type.Optional(Nullable(LocalTimes, "Addition to spec 2.1: the times at the airports' clocks")),
    sources: Type.Array(SourceEntry, { description: 'Every configured provider, in order, and what it answered' }),
    rationale: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'Addition to spec 2.1: why `selected` is null where the service can say (a flightNumber that cannot be a designator, such as `ZZ`, or no flight on the local date asked with dateBasis=local); absent otherwise',
      }),
    ),
    proof: Type.Optional(
      Nullable(
        Proof,
        'With screenshot=1: the proof image; null when this server cannot render it (proofError says why)',
      ),
    ),
    proofError: Type.Optional(
      Type.String({ description: 'With screenshot=1 where the proof could not be rendered: why' }),
    ),
  },
  { title: 'FlightStatus' },
);
export type FlightStatusData = Static<typeof FlightStatusData>;

export const FlightStatusResponse = Envelope(FlightStatusData, 'The resolved flight');

/** The 500 of a lookup: the error envelope, and when providers failed, what each answered. */
export const ProvidersFailedResponse = Type.Object(
  {
    ...ErrorResponse.properties,
    sources: Type.Optional(
      Type.Array(SourceEntry, {
        description:
          'When no provider could answer for the flight: every configured provider, in order, and what it answered (as data.sources of a 200)',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'LookupFailed',
    description: 'Internal failure, or no provider could answer; safe to retry',
  },
);
