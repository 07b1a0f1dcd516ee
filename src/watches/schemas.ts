// The schemas of /api/v1/watches (routes.ts): parameters and answers, from which answers are
// serialised and the OpenAPI document written.
import { Type } from 'typebox';
import { FlightStatusResponse } from '../flights/index.js';
import { DateTime } from '../http/schemas.js';
import { MAX_ACTIVE_WATCHES, WATCH_EVENTS_SHOWN, WATCH_PAGE, WATCH_STATES } from './service.js';

const NullableText = (description: string) => Type.Union([Type.String({ description }), Type.Null()]);

export const Params = Type.Object({ id: Type.String({ maxLength: 100, description: 'Watch id (wch_…)' }) });

export const CreateQuery = Type.Object({
  endpoints: Type.Optional(
    Type.String({
      maxLength: 4096,
      description:
        "Webhook endpoint ids, separated by commas: where every row that names none of its own sends (a CSV upload's only way to name them)",
    }),
  ),
  dateBasis: Type.Optional(
    Type.String({
      enum: ['utc', 'local'],
      description:
        "What the rows' flightDate is when a row does not say: `utc` (the default) or `local`, the departure airport's local date",
    }),
  ),
  skipInvalid: Type.Optional(
    Type.String({
      enum: ['1', '0', 'true', 'false'],
      description: '1: create the valid rows and list the invalid ones in `invalid` (they cost nothing)',
    }),
  ),
});

export const WatchView = Type.Object(
  {
    id: Type.String({ description: 'wch_…' }),
    state: Type.String({
      enum: [...WATCH_STATES],
      description:
        'active; stopped (DELETE); ended (by the service, once its flight’s record is complete, the flight is proven not to exist, or its record stayed incomplete through every ask, after a final flight.settled)',
    }),
    flightNumber: Type.String({ description: 'The designator, normalised (W6 3101 → W63101)' }),
    flightDate: Type.String({ format: 'date' }),
    dateBasis: Type.String({ enum: ['utc', 'local'] }),
    origin: NullableText('IATA, when given'),
    destination: NullableText('IATA, when given'),
    reference: NullableText("The customer's own reference"),
    endpoints: Type.Array(Type.String(), { description: 'The webhook endpoints it sends to (ids)' }),
    createdAt: DateTime('Created'),
    endedAt: Type.Union([DateTime('Stopped or ended'), Type.Null()]),
    endedReason: NullableText(
      'Why the service ended it: settled, not_found, or incomplete (the record never completed; ended as it stood after eight asks, docs/watches.md "Settled"); endpoint_deleted for a watch stopped because its last endpoint was deleted; null otherwise',
    ),
  },
  { title: 'Watch' },
);

const WatchEvent = Type.Object(
  {
    id: Type.String({ description: "The event (evt_…), as X-Flight-Event and the body's `event` name it" }),
    type: Type.String({
      description:
        'flight.tracked, flight.delayed, flight.delay_changed, flight.cancelled, flight.diverted, flight.recovered, flight.predicted_qualifying, flight.qualifying, flight.landed (watches only: the arrival time is in), and last flight.settled (docs/watches.md, "Which events")',
    }),
    createdAt: DateTime('When the change was observed'),
    deliveries: Type.Array(
      Type.Object({
        endpoint: Type.String({ description: 'The endpoint (wh_…)' }),
        id: Type.String({ description: 'The delivery (dlv_…), as in GET /api/v1/webhooks/{id}/deliveries' }),
        state: Type.String({ enum: ['queued', 'retrying', 'delivered', 'failed', 'skipped'] }),
        attempts: Type.Integer(),
        lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
        lastAttemptAt: Type.Union([DateTime('The last attempt'), Type.Null()]),
        deliveredAt: Type.Union([DateTime('Delivered'), Type.Null()]),
      }),
      { description: "Its deliveries to the watch's endpoints (one per endpoint)" },
    ),
  },
  { title: 'WatchEvent' },
);

export const WatchDetail = Type.Object(
  {
    ...WatchView.properties,
    flight: Type.Union([FlightStatusResponse.properties.data, Type.Null()], {
      description:
        'The flight as the service already holds it (the data of GET /api/v1/flights/status): once the watch has ended by itself, the answer it ended on (what its flight.settled carried); before, a settled record a lookup stored. No provider asked, no credit taken; null while it holds nothing',
    }),
    events: Type.Array(WatchEvent, {
      description: `The board events observed for this watch's flight and sent to its endpoints, newest first: the latest ${WATCH_EVENTS_SHOWN}`,
    }),
  },
  { title: 'WatchDetail' },
);

const ListedWatch = Type.Object({
  ...WatchView.properties,
  rows: Type.Array(Type.Integer(), { description: 'The input rows (from 1) that asked for this watch' }),
  existing: Type.Boolean({ description: 'It was active before this request: returned, not created, no credit' }),
});

export const Created = Type.Object(
  {
    watches: Type.Array(ListedWatch, { description: 'Each watch the valid rows name, once, in input order' }),
    created: Type.Integer({ description: 'Watches created by this request' }),
    existing: Type.Integer({ description: 'Watches that were already active, returned as they are' }),
    credits: Type.Integer({ description: 'Credits taken: one per watch created' }),
    invalid: Type.Array(Type.Object({ row: Type.Integer(), error: Type.String() }), {
      description: 'With skipInvalid=1: the rows not created, and why',
    }),
    ignoredColumns: Type.Array(Type.String(), { description: 'CSV columns that name nothing a row uses' }),
  },
  { title: 'WatchesCreated' },
);

export const WatchPage = Type.Object({
  watches: Type.Array(WatchView),
  hasMore: Type.Boolean(),
  nextAfter: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as `after` for the next page; null on the last page',
  }),
});

export const ListQuery = Type.Object(
  {
    state: Type.Optional(Type.String({ enum: [...WATCH_STATES] })),
    reference: Type.Optional(Type.String({ maxLength: 200, description: 'Only watches with this reference' })),
    flightDate: Type.Optional(Type.String({ format: 'date', description: 'Only watches of flights on this date' })),
    from: Type.Optional(Type.String({ format: 'date', description: 'Only flights on or after this date' })),
    to: Type.Optional(Type.String({ format: 'date', description: 'Only flights on or before this date' })),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: WATCH_PAGE.max, description: `Page size (default ${WATCH_PAGE.default})` }),
    ),
    after: Type.Optional(
      Type.String({ maxLength: 100, description: 'A watch id from the previous page (`nextAfter`)' }),
    ),
  },
  { additionalProperties: false },
);

export const LIMIT_NOTE = `An account may have ${MAX_ACTIVE_WATCHES.toLocaleString('en')} active watches.`;
