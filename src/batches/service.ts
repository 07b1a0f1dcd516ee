// Batches as the API, the dashboard and the CLI see them (docs/batches.md): submit rows, read a
// batch's state and counts, page or download its results, cancel what has not run. The work itself
// is the runner's (runner.ts), in the worker role.
import { DAY, iso, type Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { Result } from '../result.js';
import { outcomeOf, resultsCsv, TIME_COLUMNS, type LookupAnswer, type ResultRow } from './results.js';
import type { CallCosts } from '../providers/index.js';
import { amountAtRisk, ASSESSMENTS } from '../circumstances/index.js';
import { plan, type Plannable } from './plan.js';
import type { ParsedRows } from './rows.js';
import type { BatchRecord, BatchStore, CountRow, ResultRecord } from './store.js';

/** Batches an account may have queued or running at once. */
export const MAX_ACTIVE_BATCHES = 20;
export const BATCH_PAGE = { default: 20, max: 100 } as const;
export const RESULT_PAGE = { default: 100, max: 1000 } as const;
/** Rows named in the message of a batch refused for its invalid rows. */
const NAMED_PROBLEMS = 5;
export const OUTCOMES = ['on_time', 'delayed', 'cancelled', 'diverted', 'not_found', 'error'] as const;
export const ROW_STATES = ['pending', 'done', 'refused', 'invalid', 'canceled'] as const;
/** disrupted: delayed, cancelled or diverted; owed: compensation owed; owed_not_at_risk: owed and `amountAtRisk` false. */
export const RESULT_FILTERS = ['disrupted', 'owed', 'owed_not_at_risk'] as const;
export type ResultFilter = (typeof RESULT_FILTERS)[number];

export interface BatchView {
  id: string;
  state: BatchRecord['state'];
  format: 'json' | 'csv';
  rows: number;
  /** Distinct questions among the valid rows: a duplicate row is resolved once. */
  lookups: number;
  counts: {
    byState: Record<(typeof ROW_STATES)[number], number>;
    byOutcome: Record<(typeof OUTCOMES)[number], number>;
  };
  progress: { finished: number; total: number; percent: number };
  credits: number;
  providerCalls: { planned: number; made: number };
  ignoredColumns: string[];
  /** Why the remaining rows were refused; null while none was. */
  stoppedReason: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** From the pace so far; null before a row finished, or once the batch ended. */
  estimatedFinishAt: string | null;
  /** When the batch and its results are deleted; null until it ended. */
  expiresAt: string | null;
}

export interface Submission {
  accountId: string;
  caller: { id: string; name: string };
  format: 'json' | 'csv';
  parsed: ParsedRows;
  skipInvalid: boolean;
}

/** How the API's refusal of a batch with invalid rows says to run the valid ones; the CLI (cli/batch.ts) says its own flag instead. */
const SKIP_INVALID_HINT = 'send ?skipInvalid=1';

export class BatchService {
  constructor(
    private readonly o: {
      store: BatchStore;
      clock: Clock;
      /** How long a finished batch is kept. */
      retentionMs: number;
      /** Told when a batch was stored (the runner in this process looks at once). */
      submitted: () => void;
      /** The first provider's cost table, when it can read a day of departures whole (the plan). */
      costs: CallCosts | null;
      /** Requests a minute a batch may send to the first provider (its budget less the reserve); null: no budget. */
      budget: () => number | null;
    },
  ) {}

  async submit(s: Submission): Promise<Result<BatchView>> {
    const { rows, ignoredColumns } = s.parsed;
    if (rows.length === 0) return { kind: 'invalid', message: 'The batch holds no rows' };
    const bad = rows.filter((r) => r.query === null);
    if (bad.length > 0 && !s.skipInvalid) {
      const named = bad.slice(0, NAMED_PROBLEMS).map((r) => `row ${r.position}: ${r.error}`);
      const more = bad.length > NAMED_PROBLEMS ? `; and ${bad.length - NAMED_PROBLEMS} more` : '';
      return {
        kind: 'invalid',
        message: `${bad.length} of ${rows.length} rows are invalid and nothing was queued (${SKIP_INVALID_HINT} to run the valid rows and report the others): ${named.join('; ')}${more}`,
      };
    }
    const active = await this.o.store.list(s.accountId, MAX_ACTIVE_BATCHES);
    if (active.filter((b) => b.state === 'queued' || b.state === 'running').length >= MAX_ACTIVE_BATCHES) {
      return {
        kind: 'conflict',
        message: `${MAX_ACTIVE_BATCHES} batches of this account are queued or running; wait for one to finish or cancel one`,
      };
    }
    // Rows asking the same question share one lookup.
    const seqs = new Map<string, number>();
    const questions: Plannable[] = [];
    const stored = rows.map((r) => {
      if (!r.query) return { position: r.position, reference: r.reference, lookupSeq: null, error: r.error };
      const key = lookupKey(r.query);
      let seq = seqs.get(key);
      if (seq === undefined) {
        seqs.set(key, (seq = seqs.size + 1));
        // A local date's flight may be on either UTC date the day spans: it is not planned to an airport-day.
        questions.push({
          origin: r.query.dateBasis === 'local' ? null : r.query.origin,
          flightDate: r.query.flightDate,
        });
      }
      return { position: r.position, reference: r.reference, lookupSeq: seq, error: null };
    });
    // Days over everywhere: two UTC dates back (a local day ends by noon UTC the next day, and is read 6 hours after).
    const planned = plan(questions, this.o.costs, iso(this.o.clock.now() - 2 * DAY).slice(0, 10));
    const id = newId('bat');
    await this.o.store.insert({
      id,
      accountId: s.accountId,
      callerId: s.caller.id,
      callerName: s.caller.name,
      format: s.format,
      ignoredColumns,
      createdAt: this.o.clock.now(),
      lookups: [...seqs.keys()].map((query, i) => ({ query, plan: planned.days[i]! })),
      callsPlanned: planned.requests,
      rows: stored,
    });
    this.o.submitted();
    return this.get(s.accountId, id);
  }

  async get(accountId: string, id: string): Promise<Result<BatchView>> {
    const batch = await this.o.store.find(accountId, id);
    if (!batch) return notFound(id);
    return { kind: 'ok', value: this.view(batch, (await this.o.store.counts([batch.id])).get(batch.id) ?? []) };
  }

  async list(
    accountId: string,
    page: { limit: number; after?: string },
  ): Promise<Result<{ batches: BatchView[]; hasMore: boolean; nextAfter: string | null }>> {
    let anchor: BatchRecord | undefined;
    if (page.after !== undefined) {
      anchor = await this.o.store.find(accountId, page.after);
      if (!anchor)
        return {
          kind: 'invalid',
          message: `after: no batch ${JSON.stringify(page.after.slice(0, 100))} in this account`,
        };
    }
    const rows = await this.o.store.list(accountId, page.limit, anchor);
    const hasMore = rows.length > page.limit;
    const shown = rows.slice(0, page.limit);
    const counts = shown.length > 0 ? await this.o.store.counts(shown.map((b) => b.id)) : new Map<string, never[]>();
    const views = shown.map((b) => this.view(b, counts.get(b.id) ?? []));
    return { kind: 'ok', value: { batches: views, hasMore, nextAfter: hasMore ? shown[shown.length - 1]!.id : null } };
  }

  async cancel(accountId: string, id: string): Promise<Result<BatchView>> {
    const batch = await this.o.store.find(accountId, id);
    if (!batch) return notFound(id);
    if (batch.state === 'done' || batch.state === 'canceled') {
      return { kind: 'conflict', message: `Batch ${id} is already ${batch.state}; there is nothing left to cancel` };
    }
    const at = this.o.clock.now();
    await this.o.store.cancel(id, at, at + this.o.retentionMs);
    return this.get(accountId, id);
  }

  /** A page of results in input order, rows after `after`; with a filter, only the rows it keeps. */
  async results(
    accountId: string,
    id: string,
    page: { limit: number; after: number; only?: ResultFilter },
  ): Promise<Result<{ results: ResultRow[]; hasMore: boolean; nextAfter: number | null }>> {
    const batch = await this.o.store.find(accountId, id);
    if (!batch) return notFound(id);
    const kept: ResultRow[] = [];
    let after = page.after;
    let end = false;
    while (kept.length < page.limit && !end) {
      const records = await this.o.store.results(id, after, RESULT_PAGE.max);
      end = records.length < RESULT_PAGE.max;
      for (const record of records) {
        after = record.position;
        const row = resultRow(record);
        if (!page.only || keeps(page.only, row)) kept.push(row);
        if (kept.length === page.limit) break;
      }
    }
    // Positions run from 1 to the row count without gaps.
    const hasMore = after < Number(batch.total_rows);
    return { kind: 'ok', value: { results: kept, hasMore, nextAfter: hasMore ? after : null } };
  }

  /** Every row's result as CSV with a header row; `base` (the service's address) makes the evidence links absolute. */
  async resultsCsv(accountId: string, id: string, base: string, only?: ResultFilter): Promise<Result<string>> {
    const batch = await this.o.store.find(accountId, id);
    if (!batch) return notFound(id);
    const parts: string[] = [];
    let after = 0;
    for (;;) {
      const records = await this.o.store.results(id, after, RESULT_PAGE.max);
      const rows = records.map(resultRow).filter((r) => !only || keeps(only, r));
      parts.push(resultsCsv(rows, after === 0, base));
      if (records.length < RESULT_PAGE.max) break;
      after = records[records.length - 1]!.position;
    }
    return { kind: 'ok', value: parts.join('') };
  }

  private view(batch: BatchRecord, counts: CountRow[]): BatchView {
    const byState = Object.fromEntries(ROW_STATES.map((s) => [s, 0])) as BatchView['counts']['byState'];
    const byOutcome = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as BatchView['counts']['byOutcome'];
    let credits = 0;
    for (const c of counts) {
      byState[c.state as keyof typeof byState] += c.rows;
      if (c.state === 'done' && c.outcome) byOutcome[c.outcome as keyof typeof byOutcome] += c.rows;
      credits += c.credits;
    }
    const total = Number(batch.total_rows);
    const finished = total - byState.pending;
    const ended = batch.state === 'done' || batch.state === 'canceled';
    return {
      id: batch.id,
      state: batch.state,
      format: batch.format,
      rows: total,
      lookups: Number(batch.lookups),
      counts: { byState, byOutcome },
      progress: { finished, total, percent: total === 0 ? 100 : Math.floor((finished * 100) / total) },
      credits,
      providerCalls: { planned: Number(batch.calls_planned), made: Number(batch.calls_made) },
      ignoredColumns: JSON.parse(batch.ignored_columns) as string[],
      stoppedReason: batch.stopped_reason,
      createdAt: iso(Number(batch.created_at)),
      startedAt: batch.started_at === null ? null : iso(Number(batch.started_at)),
      finishedAt: batch.finished_at === null ? null : iso(Number(batch.finished_at)),
      estimatedFinishAt: ended ? null : this.estimate(batch, finished - byState.invalid, total - finished),
      expiresAt: batch.expires_at === null ? null : iso(Number(batch.expires_at)),
    };
  }

  /**
   * The later of two bounds: the pace of the rows answered so far carried over the rows left, and the
   * provider requests the plan has left at the batch's share of the provider's budget a minute.
   */
  private estimate(batch: BatchRecord, answered: number, left: number): string | null {
    const now = this.o.clock.now();
    const budget = this.o.budget();
    const requestsLeft = Math.max(0, Number(batch.calls_planned) - Number(batch.calls_made));
    const byBudget = budget && left > 0 ? Math.ceil((requestsLeft / budget) * 60_000) : null;
    const spent = batch.started_at === null ? 0 : now - Number(batch.started_at);
    const byPace = answered > 0 && spent > 0 ? Math.ceil((spent / answered) * left) : null;
    if (byBudget === null && byPace === null) return null;
    return iso(now + Math.max(byBudget ?? 0, byPace ?? 0));
  }
}

/** What makes two rows the same question: the query the resolver is given, canonical. */
export function lookupKey(query: {
  designator: string;
  flightDate: string;
  dateBasis: 'utc' | 'local';
  origin: string | null;
  destination: string | null;
}): string {
  const fields: Record<string, string> = { flightNumber: query.designator, flightDate: query.flightDate };
  if (query.dateBasis === 'local') fields.dateBasis = 'local';
  if (query.origin) fields.origin = query.origin;
  if (query.destination) fields.destination = query.destination;
  return new URLSearchParams(fields).toString();
}

function resultRow(record: ResultRecord): ResultRow {
  const query = record.query === null ? null : new URLSearchParams(record.query);
  const answer = record.state === 'done' && record.result !== null ? (JSON.parse(record.result) as LookupAnswer) : null;
  const amounts =
    answer && !answer.error ? { eu: answer.eu261?.amountEur ?? null, uk: answer.uk261?.amountGbp ?? null } : null;
  const owed = amounts && answer?.found ? amounts.eu !== null || amounts.uk !== null : null;
  const assessment = ASSESSMENTS.find((a) => a === answer?.circumstances) ?? null;
  return {
    row: Number(record.position),
    reference: record.reference,
    flightNumber: query?.get('flightNumber') ?? null,
    flightDate: query?.get('flightDate') ?? null,
    origin: answer?.origin ?? query?.get('origin') ?? null,
    destination: answer?.destination ?? query?.get('destination') ?? null,
    state: record.state,
    outcome: answer ? outcomeOf(answer) : null,
    delayMinutes: answer?.delayMinutes ?? null,
    verdict: answer?.verdict ?? null,
    compensationOwed: owed,
    assessment,
    // The rule the lookup's compensation.amountAtRisk follows (withRisk), applied to what the row
    // stored: every stored answer has its assessment and amounts, so rows run before this column
    // existed read the same as new ones, and no provider is asked again.
    amountAtRisk: owed === true && assessment !== null ? amountAtRisk(assessment) : null,
    eu261AmountEur: amounts?.eu ?? null,
    uk261AmountGbp: amounts?.uk ?? null,
    circumstances: answer?.circumstances ?? null,
    credits: record.usage_id === null ? 0 : 1,
    error: record.error,
    evidenceUrl: answer?.found && record.query ? `/api/v1/flights/evidence?${record.query}` : null,
    dateBasis: query ? (query.get('dateBasis') === 'local' ? 'local' : 'utc') : null,
    carrierIata: answer?.carrier?.iata ?? null,
    carrierName: answer?.carrier?.name ?? null,
    notFoundReason: answer && answer.found === false && answer.error === null ? (answer.notFoundReason ?? null) : null,
    ...Object.fromEntries(TIME_COLUMNS.map((c) => [c, answer?.times?.[c] ?? null])),
  } as ResultRow;
}

function keeps(filter: ResultFilter, row: ResultRow): boolean {
  if (filter === 'owed') return row.compensationOwed === true;
  if (filter === 'owed_not_at_risk') return row.compensationOwed === true && row.amountAtRisk === false;
  return row.outcome === 'delayed' || row.outcome === 'cancelled' || row.outcome === 'diverted';
}

const notFound = (id: string): Result<never> => ({
  kind: 'not_found',
  message: `No batch ${JSON.stringify(id.slice(0, 100))} in this account`,
});
