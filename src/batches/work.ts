// One chunk of a batch's lookups, claimed together by a runner (runner.ts): their rows read in one
// query, one credit per row through the status endpoint's admission, each lookup resolved once on the
// same resolver, and every answer and charge of the chunk written in one transaction while the
// leases are still the runner's.
import type { DepartureDays, ObservedFlights } from '../providers/index.js';
import { plannedDay, type AirportDayReads, type DepartureDayCache } from './plan.js';
import type { Principal } from '../auth/index.js';
import type { Clock } from '../clock.js';
import { waitedForConnection, type ConnectionShare, type Database } from '../db/index.js';
import { parseFlightQuery, type FlightQuery, type FlightResolver, type ResolveContext } from '../flights/index.js';
import type { Logger } from '../logger.js';
import type { Admission, Gate, MeteringService } from '../metering/index.js';
import { failed, outcomeOf, summarise, type LookupAnswer } from './results.js';
import type { BatchStore, Claimed, LookupWrite, OpenRow } from './store.js';

/** The usage rows of batch rows say this endpoint; their query is the row's, with its batch and row. */
export const BATCH_ENDPOINT = 'POST /api/v1/batches';
/** Attempts of a lookup whose providers could not be asked, before its rows get the error. */
export const MAX_ATTEMPTS = 3;
/** Wait before a lookup whose providers could not be asked is tried again, times the attempt. */
const RETRY_AFTER_MS = 5_000;
/** Wait before a lookup given back for want of a database connection is taken again (not an attempt). */
const BACK_PRESSURE_MS = 1_000;
/**
 * A batch lookup's provider deadline: its calls may wait for the batch's share of the budget
 * (providers/budget.ts, backgroundReserve), which a single lookup never waits for.
 */
const BATCH_CALL_TIMEOUT_MS = 120_000;

/** The usage row's query of one batch row: what finds its credit again. */
export const marker = (batchId: string, query: string, position: number): string =>
  `${query}&batch=${batchId}&row=${position}`;

export interface WorkDeps {
  store: BatchStore;
  db: Database;
  gate: Gate;
  metering: MeteringService;
  resolver: FlightResolver;
  clock: Clock;
  wallClock: Clock;
  logger: Logger;
  days: DepartureDayCache;
  /** Plan step 3: the flights the board poller saw final, asked first. */
  observed?: ObservedFlights;
  /** Plan step 4 where a provider reads an airport's past day: the day read whole and kept (src/boards/days.ts). */
  airportDays?: AirportDayReads;
  /** The batches' share of the database pool: every statement of a lookup waits for room in it (db/share.ts). */
  share: ConnectionShare;
  stopping: AbortSignal;
}

export interface ChunkBatch {
  id: string;
  account_id: string;
  created_at: number;
}

/** Answers the claimed lookups of one batch and writes them together. */
export async function answerChunk(
  deps: WorkDeps,
  batch: ChunkBatch,
  lookups: Claimed[],
  principal: Principal,
): Promise<void> {
  const { store, share } = deps;
  let rows: OpenRow[];
  try {
    rows = await share.run(() =>
      store.lookups.openRows(
        batch.id,
        lookups.map((l) => l.seq),
      ),
    );
  } catch (error) {
    if (!waitedForConnection(error)) throw error;
    // Nothing was charged yet: every lookup goes back as it came.
    for (const lookup of lookups) await giveBack(deps, batch, lookup, [], 0, error);
    return;
  }
  const bySeq = new Map<number, OpenRow[]>();
  for (const row of rows) bySeq.set(row.lookupSeq, [...(bySeq.get(row.lookupSeq) ?? []), row]);
  const stop = { reason: null as string | null };
  const writes = (
    await Promise.all(
      lookups.map((lookup) => answerLookup(deps, batch, lookup, bySeq.get(lookup.seq) ?? [], principal, stop)),
    )
  ).filter((w): w is LookupWrite => w !== null);
  try {
    await share.run(() => store.lookups.writeMany(batch.id, writes));
  } catch (error) {
    if (!waitedForConnection(error)) throw error;
    // The answers could not be written: each lookup goes back with the credits its rows took, to be answered again.
    for (const w of writes) {
      const charges = w.rows.flatMap((r) => (r.usageId === null ? [] : [{ position: r.position, usageId: r.usageId }]));
      await giveBack(deps, batch, w.lookup, charges, w.calls, error);
    }
    return;
  }
  const reason = stop.reason;
  if (reason) await share.run(() => store.lookups.stop(batch.id, reason, deps.clock.now()));
}

/**
 * One lookup: its rows charged, the question resolved once; null when it was given back to be tried
 * again. The pool's wait for a connection running out (a database too busy to serve it in time) is
 * back-pressure, not a failure of the lookup: it is given back with the charges it took so far, and
 * that attempt does not count.
 */
async function answerLookup(
  deps: WorkDeps,
  batch: ChunkBatch,
  lookup: Claimed,
  rows: OpenRow[],
  principal: Principal,
  stop: { reason: string | null },
): Promise<LookupWrite | null> {
  const charges: { position: number; usageId: number }[] = [];
  // The provider requests this lookup sends, a day of departures it reads for others included.
  const meter = { requests: 0 };
  try {
    return await attempt(deps, batch, lookup, rows, principal, stop, charges, meter);
  } catch (error) {
    if (!waitedForConnection(error)) throw error;
    await giveBack(deps, batch, lookup, charges, meter.requests, error);
    return null;
  }
}

/** Gives a lookup back for want of a connection, with the charges its rows took, without counting the attempt. */
async function giveBack(
  deps: WorkDeps,
  batch: ChunkBatch,
  lookup: Claimed,
  charges: { position: number; usageId: number }[],
  calls: number,
  error: Error,
): Promise<void> {
  deps.logger.warn(
    { lookup: `${batch.id}:${lookup.seq}`, reason: error.message },
    'batch lookup waited too long for a database connection; given back, not counted as an attempt',
  );
  await deps.share.run(() =>
    deps.store.lookups.release(batch.id, lookup, charges, calls, deps.wallClock.now() + BACK_PRESSURE_MS, {
      counted: false,
    }),
  );
}

async function attempt(
  deps: WorkDeps,
  batch: ChunkBatch,
  lookup: Claimed,
  rows: OpenRow[],
  principal: Principal,
  stop: { reason: string | null },
  charges: { position: number; usageId: number }[],
  meter: { requests: number },
): Promise<LookupWrite | null> {
  const { store, gate, metering, clock, share } = deps;
  const parsed = parseFlightQuery(Object.fromEntries(new URLSearchParams(lookup.query)));
  if (!parsed.ok) throw new Error(`stored lookup ${lookup.query} no longer parses: ${parsed.message}`);

  // One credit per row; once one is refused (the ceiling), the batch's other rows are refused too.
  const refused: OpenRow[] = [];
  for (const row of rows) {
    if (stop.reason) {
      refused.push(row);
      continue;
    }
    const query = marker(batch.id, lookup.query, row.position);
    // A lookup taken over from a worker that died: its rows may hold credits it took.
    let usageId =
      row.usageId ??
      (lookup.attempts > 1
        ? await share.run(() => deps.metering.chargeOf(batch.account_id, BATCH_ENDPOINT, query, batch.created_at))
        : null);
    if (usageId === null) {
      const admission = await gate.admitPrincipal(principal, { at: clock.now(), endpoint: BATCH_ENDPOINT, query });
      if (admission.kind === 'admitted' && admission.charge) usageId = admission.charge.usageId;
      else {
        stop.reason ??= refusal(admission);
        refused.push(row);
        continue;
      }
    }
    charges.push({ position: row.position, usageId });
  }

  let answer: LookupAnswer;
  let status = 200;
  const began = performance.now();
  if (charges.length === 0) answer = failed(stop.reason ?? 'nothing to answer');
  else {
    const call = {
      meter,
      background: true,
      departures: await readPlannedDay(deps, lookup.plan, parsed.query, meter),
      timeoutMs: BATCH_CALL_TIMEOUT_MS,
    };
    const resolved = await resolve(deps, parsed.query, `${batch.id}:${lookup.seq}`, call);
    if ('retry' in resolved) {
      // Cut short by a shutdown: given back as it is, for the next worker at once.
      if (deps.stopping.aborted) {
        await share.run(() => store.lookups.release(batch.id, lookup, charges, meter.requests, deps.wallClock.now()));
        return null;
      }
      if (lookup.attempts < MAX_ATTEMPTS) {
        await share.run(() =>
          store.lookups.release(
            batch.id,
            lookup,
            charges,
            meter.requests,
            deps.wallClock.now() + RETRY_AFTER_MS * lookup.attempts,
          ),
        );
        return null;
      }
      answer = failed(resolved.retry);
      status = 500;
    } else answer = resolved.answer;
  }
  const durationMs = performance.now() - began;
  await Promise.all(charges.map((c) => metering.settleUsage({ usageId: c.usageId, status, durationMs })));
  return {
    lookup,
    result: JSON.stringify({ ...answer, providerCalls: meter.requests }),
    outcome: outcomeOf(answer),
    calls: meter.requests,
    rows: [
      ...charges.map((c) => ({
        position: c.position,
        usageId: c.usageId,
        state: 'done' as const,
        error: answer.error,
      })),
      ...refused.map((r) => ({ position: r.position, usageId: null, state: 'refused' as const, error: stop.reason })),
    ],
    at: clock.now(),
  };
}

/**
 * The plan's day of a lookup (plan.ts, step 4), for a lookup the kept rows do not answer already: the
 * airport's day read whole and kept, where a provider reads past days and the day is over (the
 * resolver's step 3 then answers the lookup from its rows, and the circumstances, later batches and
 * other processes read the same day: one read); otherwise its departures read for this process's
 * lookups of that day.
 */
async function readPlannedDay(
  deps: WorkDeps,
  day: string | null,
  query: FlightQuery,
  meter: { requests: number },
): Promise<DepartureDays | undefined> {
  const { airportDays, observed } = deps;
  if (day === null || !airportDays || !observed || !plannedDay(day).both) return deps.days.for(day);
  const { airport, date } = plannedDay(day);
  const lookup = {
    designator: query.designator,
    flightDate: query.flightDate,
    origin: query.origin,
    destination: query.destination,
  };
  if ((await deps.share.run(() => observed.find(lookup))) !== null) return undefined;
  const read = await airportDays.read(airport, date, { signal: deps.stopping, meter, background: true });
  // Not over yet where the provider's zone says so, or not available: its departures, as before.
  return read === 'read' ? undefined : deps.days.for(day);
}

async function resolve(
  deps: WorkDeps,
  query: FlightQuery,
  requestId: string,
  call: ResolveContext['call'],
): Promise<{ answer: LookupAnswer } | { retry: string }> {
  try {
    const data = await deps.resolver.resolve(query, {
      signal: deps.stopping,
      requestId: `batch:${requestId}`,
      call,
      share: deps.share,
      ...(deps.observed ? { observed: deps.observed } : {}),
    });
    if (data.kind === 'unavailable') return { retry: data.message };
    return { answer: summarise(data.data) };
  } catch (error) {
    if (waitedForConnection(error)) throw error; // back-pressure: answerLookup gives the lookup back
    deps.logger.error({ err: error, lookup: requestId }, 'batch lookup could not be resolved');
    return { retry: 'The lookup failed on our side; it was tried again and failed each time.' };
  }
}

/** Why a row was refused, as the status endpoint would have said it (429, 402, 403). */
function refusal(admission: Admission): string {
  switch (admission.kind) {
    case 'exhausted':
      return 'allowance_exhausted: the allowance of this window is used up and overage is off (a single lookup would have answered 429)';
    case 'payment_required':
      return `payment_required: ${admission.reason.replace('_', ' ')} (a single lookup would have answered 402)`;
    case 'forbidden':
      return `forbidden: ${admission.reason.replace('_', ' ')} (a single lookup would have answered 403)`;
    default:
      return 'refused';
  }
}
