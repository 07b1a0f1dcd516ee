// The schemas of /api/v1/batches (routes.ts): parameters and answers, from which answers are
// serialised and the OpenAPI document written.
import { Type } from 'typebox';
import { DateTime } from '../http/schemas.js';
import { CSV_COLUMNS, TIME_COLUMNS } from './results.js';
import { ASSESSMENTS } from '../circumstances/index.js';
import { BATCH_PAGE, OUTCOMES, RESULT_FILTERS, RESULT_PAGE, ROW_STATES } from './service.js';

/** Largest upload: 10,000 rows of up to ~400 bytes each. */
export const MAX_BATCH_BYTES = 4 * 1024 * 1024;

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const counted = (names: readonly string[], what: string) =>
  Type.Object(Object.fromEntries(names.map((n) => [n, Type.Integer({ description: `${what} ${n}` })])));

export const Params = Type.Object({ id: Type.String({ maxLength: 100, description: 'Batch id (bat_…)' }) });

export const SubmitQuery = Type.Object({
  dateBasis: Type.Optional(
    Type.String({
      enum: ['utc', 'local'],
      description:
        "What the rows' flightDate is when a row does not say (its own `dateBasis` column or field wins): `utc` (the default) or `local`, the departure airport's local date",
    }),
  ),
  skipInvalid: Type.Optional(
    Type.String({
      enum: ['1', '0', 'true', 'false'],
      description: '1: run the valid rows and report the invalid ones in the results (they cost nothing)',
    }),
  ),
});

export const BatchView = Type.Object(
  {
    id: Type.String(),
    state: Type.String({ enum: ['queued', 'running', 'done', 'canceled'] }),
    format: Type.String({ enum: ['json', 'csv'] }),
    rows: Type.Integer({ description: 'Input rows' }),
    lookups: Type.Integer({
      description: 'Distinct questions among the valid rows: rows asking the same one are resolved once',
    }),
    counts: Type.Object({
      byState: counted(ROW_STATES, 'Rows'),
      byOutcome: counted(OUTCOMES, 'Rows answered'),
    }),
    progress: Type.Object({
      finished: Type.Integer({ description: 'Rows no longer pending' }),
      total: Type.Integer(),
      percent: Type.Integer({ minimum: 0, maximum: 100 }),
    }),
    credits: Type.Integer({
      description: 'Credits taken so far: one per answered row, never more than the valid rows',
    }),
    providerCalls: Type.Object({
      planned: Type.Integer({
        description:
          "Requests to flight-data providers the batch's plan expects (before replays of stored records, which cost none)",
      }),
      made: Type.Integer({ description: 'Requests to flight-data providers made for this batch so far' }),
    }),
    ignoredColumns: Type.Array(Type.String(), { description: 'CSV columns that name nothing a row uses' }),
    stoppedReason: Nullable(
      Type.String({ description: 'Why the remaining rows were refused (allowance used up, account disabled, …)' }),
    ),
    createdAt: DateTime('Submitted'),
    startedAt: Type.Union([DateTime('The first lookup started'), Type.Null()]),
    finishedAt: Type.Union([DateTime('Done or canceled'), Type.Null()]),
    estimatedFinishAt: Type.Union([
      DateTime(
        "From the pace so far and the requests left at the batch's share of the provider's budget; null once ended",
      ),
      Type.Null(),
    ]),
    expiresAt: Type.Union([
      DateTime('When the batch and its results are deleted (FLIGHTSTATUS_BATCH_RETENTION_DAYS after it ended)'),
      Type.Null(),
    ]),
  },
  { title: 'Batch' },
);

export const BatchPage = Type.Object({
  batches: Type.Array(BatchView),
  hasMore: Type.Boolean(),
  nextAfter: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as `after` for the next page; null on the last page',
  }),
});

export const ListQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: BATCH_PAGE.max, description: `Page size (default ${BATCH_PAGE.default})` }),
    ),
    after: Type.Optional(
      Type.String({ maxLength: 100, description: 'A batch id from the previous page (`nextAfter`)' }),
    ),
  },
  { additionalProperties: false },
);

export const ResultsQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: RESULT_PAGE.max, description: `Page size (default ${RESULT_PAGE.default})` }),
    ),
    after: Type.Optional(
      Type.Integer({ minimum: 0, description: 'The row number the previous page ended with (`nextAfter`)' }),
    ),
    only: Type.Optional(
      Type.String({
        enum: [...RESULT_FILTERS],
        description:
          'disrupted: delayed, cancelled or diverted; owed: EU261 or UK261 compensation owed; owed_not_at_risk: owed, and `amountAtRisk` false (the circumstances were checked and show nothing extraordinary)',
      }),
    ),
    format: Type.Optional(
      Type.String({ enum: ['json', 'csv'], description: 'csv: the whole result as CSV (as Accept: text/csv)' }),
    ),
  },
  { additionalProperties: false },
);

const NullableInt = (description: string) => Type.Union([Type.Integer({ description }), Type.Null()]);
const NullableText = (description: string) => Type.Union([Type.String({ description }), Type.Null()]);

export const ResultRowSchema = Type.Object(
  {
    row: Type.Integer({ description: 'Input row number, from 1' }),
    reference: NullableText('The reference given with the row'),
    flightNumber: NullableText('The designator looked up'),
    flightDate: NullableText('YYYY-MM-DD'),
    origin: NullableText('IATA'),
    destination: NullableText('IATA'),
    state: Type.String({ enum: [...ROW_STATES] }),
    outcome: Type.Union([Type.String({ enum: [...OUTCOMES] }), Type.Null()]),
    delayMinutes: Type.Union([Type.Number(), Type.Null()]),
    verdict: NullableText('The verdict kind (data.flightDelay.statusKind)'),
    compensationOwed: Type.Union([Type.Boolean(), Type.Null()]),
    assessment: Type.Union(
      [
        Type.String({
          enum: [...ASSESSMENTS],
          description: "The circumstances' assessment (data.circumstances.assessment)",
        }),
        Type.Null(),
      ],
      {
        description: 'null when the row has no circumstances (not disrupted, not found, no answer)',
      },
    ),
    amountAtRisk: Type.Union([Type.Boolean(), Type.Null()], {
      description:
        'Compensation is owed and the assessment is likely or possibly extraordinary (data.compensation.amountAtRisk): the airline may refuse it (Art. 5(3)); false when the assessment is not_indicated; null when nothing is owed, the row has no circumstances or they could not be checked (unknown)',
    }),
    eu261AmountEur: NullableInt('EU261 amount owed'),
    uk261AmountGbp: NullableInt('UK261 amount owed'),
    circumstances: NullableText(
      'The circumstances assessment, where the flight has circumstances: the same as `assessment`, kept in its column',
    ),
    credits: Type.Integer({ minimum: 0, maximum: 1 }),
    error: NullableText('Why the row has no answer'),
    evidenceUrl: NullableText(
      "The evidence PDF of the row's flight (GET /api/v1/flights/evidence, one credit), once it was found",
    ),
    dateBasis: Type.Union([Type.String({ enum: ['utc', 'local'] }), Type.Null()], {
      description:
        "What the row's flightDate is: utc, or local (the departure airport's date); null for a row that could not be read",
    }),
    ...Object.fromEntries(
      TIME_COLUMNS.map((c) => [
        c,
        NullableText(
          c.endsWith('Timezone')
            ? `The ${c.startsWith('departure') ? 'departure' : 'arrival'} airport's IANA time zone`
            : c.endsWith('Local')
              ? `The record's ${c.slice(0, -5)} at the airport's clock, with its UTC offset (data.localTimes)`
              : `The record's ${c}, UTC (data.selected.${c})`,
        ),
      ]),
    ),
    carrierIata: NullableText("The airline's IATA code, as the record has it (data.selected.airline.iata)"),
    carrierName: NullableText("The airline's name, as the record has it (data.selected.airline.name)"),
    notFoundReason: NullableText(
      "Why the flight was not found (outcome not_found): the service's rationale, or what each provider answered; null otherwise",
    ),
  },
  {
    title: 'BatchResult',
    description: `The CSV (UTF-8 with a byte order mark) has the same columns: ${CSV_COLUMNS.join(', ')}; its evidenceUrl is absolute`,
  },
);

export const ResultPage = Type.Object({
  results: Type.Array(ResultRowSchema),
  hasMore: Type.Boolean(),
  nextAfter: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Pass as `after` for the next page; null on the last page',
  }),
});
