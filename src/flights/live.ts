// A lookup resolved live (docs/flight-lookup.md): the providers' answers merged and classified, the
// circumstances and compensation assessed, and the record stored when the caching rules say so.
//
// Resolve: providers are asked in the configured order with a deadline each. A complete answer
// (`hit`: the provider holds the settled record) ends the cascade and the providers after it are
// `skipped`; `incomplete` answers go on to the next provider and are merged field by field
// (merge.ts). A corroborating provider (OpenSky) is asked about the record found so far, after a
// hit too, and adds evidence, never fields of its own (`skipped` while nothing is found). Nothing
// matched: `selected: null` when every provider answered `miss`, `unavailable` (a 500 at
// the HTTP edge, safe to retry) when any provider failed, since the flight may exist where we could
// not look.
// A batch's lookup may first be answered from what the board poller saw final (ResolveContext.observed,
// source `boards`): it then settles the flight as a provider's hit would, and the rest is the same.
import type { Clock } from '../clock.js';
import { DAY, iso } from '../clock.js';
import type { ConnectionShare } from '../db/index.js';
import type { Logger } from '../logger.js';
import {
  type FlightProvider,
  type ObservedFlights,
  type Outcome,
  type ProviderErrorKind,
  type TimeKind,
} from '../providers/index.js';
import { checked } from './consistency.js';
import { localTimesOf, utcDateNote } from './local.js';
import type { FlightQuery } from './query.js';
import type { ReferenceAirports } from '../airports/index.js';
import type { Assessment } from '../compensation/index.js';
import { assessFlight, disruptionOf } from './settled.js';
import type { Resolution, ResolveContext } from './resolver.js';
import type { RecordStore } from './records.js';
import type { LocalTimes } from './schema.js';
import { mergeAnswers, type Matched } from './merge.js';
import { classify } from './verdict.js';
import type { FlightDelayVerdict, SelectedRecord } from './shapes.js';
import { withRisk, type Circumstances, type CircumstancesService } from '../circumstances/index.js';

/** A disruption is stored once its departure is more than three UTC days (72 h) old (docs/flight-lookup.md, "Replay"). */
export const SETTLE_WINDOW_MS = 3 * DAY;
const PERSISTED_STATUSES = new Set(['delayed', 'cancelled', 'diverted']);

/** One provider's part in a resolve (`data.sources[]`). */
export interface SourceEntry {
  provider: string;
  outcome: Outcome;
  durationMs: number;
  /** Record fields this provider supplied (empty unless it matched). */
  fields: string[];
  /** Each time of the record this provider supplied, with what kind of time it is. */
  times: { field: string; kind: TimeKind; at: string }[];
  error: { kind: ProviderErrorKind; message: string } | null;
}

/** What a resolve decides, shared by every request that joined it. */
export interface Resolved {
  kind: 'resolved';
  selected: SelectedRecord | null;
  flightDelay: FlightDelayVerdict | null;
  compensation: Assessment | null;
  circumstances: Circumstances | null;
  sources: SourceEntry[];
  persisted: boolean;
  /** Why nothing was found where the service can say without asking (`data.rationale`). */
  rationale?: string[];
}

export type Unavailable = Extract<Resolution, { kind: 'unavailable' }>;

/** The stored body: what a replay answers besides flightNumber, flightDate and meta. */
export interface StoredBody {
  originIata: string | null;
  destinationIata: string | null;
  selected: SelectedRecord;
  flightDelay: FlightDelayVerdict | null;
  compensation: Assessment | null;
  circumstances?: Circumstances | null;
  /** Absent on records stored before local times were given: a replay adds them (local.ts). */
  localTimes?: LocalTimes | null;
  sources: SourceEntry[];
}

/** What a live resolve asks, merges with and stores in (the lookup's dependencies, the proof renderer aside). */
export interface LiveDeps {
  providers: FlightProvider[];
  clock: Clock;
  records: RecordStore;
  logger: Logger;
  providerTimeoutMs: number;
  airports: ReferenceAirports;
  /** Why a disrupted flight was disrupted (docs/flight-lookup.md, "Circumstances"); absent: no circumstances are given. */
  circumstances?: CircumstancesService;
}

/** A resolve from the providers (and the boards' final rows, where a batch has them), for every request that joined it. */
export async function resolveLive(
  deps: LiveDeps,
  query: FlightQuery,
  signal: AbortSignal,
  call: NonNullable<ResolveContext['call']>,
  observed?: ObservedFlights,
  share?: ConnectionShare,
): Promise<Resolved | Unavailable> {
  const { providers, providerTimeoutMs, clock } = deps;
  // The database work of a batch's resolve waits its turn in the batch's share of the pool.
  const database = <T>(work: () => Promise<T>): Promise<T> => (share ? share.run(work) : work());
  const sources: SourceEntry[] = [];
  const matched: Matched[] = [];
  let settled = false;
  if (observed) {
    // What the boards showed final, when they hold all of it, settles the flight as a provider's hit would.
    const began = performance.now();
    const seen = await database(() =>
      observed.find({
        designator: query.designator,
        flightDate: query.flightDate,
        origin: query.origin,
        destination: query.destination,
      }),
    );
    const leg = seen ? checked(seen) : null;
    if (leg?.settled) {
      sources.push({
        provider: leg.provider,
        outcome: 'hit',
        durationMs: Math.round((performance.now() - began) * 100) / 100,
        fields: [],
        times: [],
        error: null,
      });
      matched.push({ provider: leg.provider, legs: [leg], corroborates: false });
      settled = true;
    }
  }
  for (const provider of providers) {
    if (signal.aborted) break; // every client went away: ask nobody else
    // A corroborating provider (OpenSky) is asked about what the others found, settled or not, and
    // only once they found something.
    const corroborates = provider.corroborates === true;
    const known = corroborates ? (mergeAnswers(matched)?.flight ?? null) : undefined;
    if ((settled && !corroborates) || known === null) {
      sources.push({ provider: provider.name, outcome: 'skipped', durationMs: 0, fields: [], times: [], error: null });
      continue;
    }
    const began = performance.now();
    // The providers come bounded (call.ts): past the deadline, or thrown, the call answers `error`.
    const answer = await provider.lookupFlight(
      {
        designator: query.designator,
        flightDate: query.flightDate,
        origin: query.origin,
        destination: query.destination,
        ...(known ? { known } : {}),
      },
      { ...call, signal, timeoutMs: call.timeoutMs ?? providerTimeoutMs },
    );
    const durationMs = Math.round((performance.now() - began) * 100) / 100;
    if (answer.outcome === 'error') {
      deps.logger.warn(
        { provider: provider.name, kind: answer.error.kind, reason: answer.error.message },
        'provider lookup failed',
      );
      sources.push({
        provider: provider.name,
        outcome: 'error',
        durationMs,
        fields: [],
        times: [],
        error: answer.error,
      });
      continue;
    }
    if (answer.outcome === 'miss') {
      sources.push({ provider: provider.name, outcome: 'miss', durationMs, fields: [], times: [], error: null });
      continue;
    }
    // A picture that contradicts itself never settles: the cascade goes on to the next provider.
    const legs = corroborates ? answer.value : answer.value.map(checked);
    const outcome = answer.outcome === 'hit' && legs.some((l) => !l.settled) ? 'incomplete' : answer.outcome;
    sources.push({ provider: provider.name, outcome, durationMs, fields: [], times: [], error: null });
    matched.push({ provider: provider.name, legs, corroborates });
    if (outcome === 'hit' && !corroborates) settled = true;
  }

  if (matched.length === 0) {
    if (sources.some((s) => s.outcome === 'error')) {
      const answers = sources.map(
        (s) =>
          `${s.provider}: ${s.outcome === 'error' ? `failed (${s.error!.kind})` : s.outcome === 'miss' ? 'not found' : s.outcome}`,
      );
      return {
        kind: 'unavailable',
        message: `No flight data provider could answer for this flight (${answers.join(', ')}); nothing was stored and the request can be retried safely. sources has each provider's answer.`,
        sources,
      };
    }
    return {
      kind: 'resolved',
      selected: null,
      flightDelay: null,
      compensation: null,
      circumstances: null,
      sources,
      persisted: false,
    };
  }

  const merged = mergeAnswers(matched)!;
  const { selected, flightDelay } = classify(merged);
  const note = utcDateNote(query.flightDate, selected, deps.airports);
  if (note && flightDelay) flightDelay.disruption.rationale.push(note);
  const outcome = disruptionOf(selected);
  const circumstances =
    outcome && deps.circumstances && !signal.aborted
      ? await deps.circumstances.assess(merged.flight, outcome, signal, {
          meter: call.meter,
          background: call.background,
          share,
        })
      : null;
  const assessed = selected.complete ? assessFlight(deps.airports, merged.flight, selected) : null;
  const compensation = assessed && circumstances ? withRisk(assessed, circumstances) : assessed;
  for (const source of sources) {
    source.fields = Object.entries(merged.fieldSources)
      .filter(([, provider]) => provider === source.provider)
      .map(([field]) => field);
    source.times = merged.times
      .filter((t) => t.provider === source.provider)
      .map(({ field, kind, at }) => ({ field, kind, at: iso(at) }));
  }

  const departedAt = merged.flight.departure.actual ?? merged.flight.departure.scheduled;
  const now = clock.now();
  const persistable =
    PERSISTED_STATUSES.has(selected.status) &&
    selected.complete &&
    departedAt !== null &&
    now - departedAt > SETTLE_WINDOW_MS;
  if (persistable) {
    const body: StoredBody = {
      originIata: selected.originIata,
      destinationIata: selected.destinationIata,
      selected,
      flightDelay,
      compensation,
      circumstances,
      localTimes: localTimesOf(selected, deps.airports),
      sources,
    };
    const row: Parameters<RecordStore['save']>[0] = {
      flight_number: query.designator,
      flight_date: query.flightDate,
      origin_iata: selected.originIata,
      destination_iata: selected.destinationIata,
      unfiltered: query.origin === null && query.destination === null ? 1 : 0,
      status: selected.status,
      source: selected.source,
      departed_at: departedAt,
      body: JSON.stringify(body),
      updated_at: now,
    };
    await database(() => deps.records.save(row));
  }
  return { kind: 'resolved', selected, flightDelay, compensation, circumstances, sources, persisted: persistable };
}
