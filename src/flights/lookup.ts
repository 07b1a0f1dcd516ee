// The flight lookup service (docs/flight-lookup.md): replay a settled disruption when one is stored, else
// resolve it from the providers, classify it, and store it when the caching rules say so.
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
// Identical lookups in flight at the same moment share one resolve; each response gets its own meta.
import type { Clock } from '../clock.js';
import { DAY, iso } from '../clock.js';
import type { ConnectionShare } from '../db/index.js';
import type { Logger } from '../logger.js';
import { type FlightProvider, type ObservedFlights, type Outcome, type ProviderErrorKind, type TimeKind } from '../providers/index.js';
import { checked } from './consistency.js';
import { localTimesOf, utcDateNote, withLocalTimes } from './local.js';
import { isDesignator, type FlightQuery } from './query.js';
import type { ReferenceAirports } from '../airports/index.js';
import type { Assessment } from '../compensation/index.js';
import { assessFlight, disruptionOf } from './settled.js';
import type { FlightResolver, Resolution, ResolveContext } from './resolver.js';
import { matchesFilter, type RecordStore } from './records.js';
import type { FlightStatusData, LocalTimes } from './schema.js';
import { mergeAnswers, type Matched } from './merge.js';
import { classify } from './verdict.js';
import type { FlightDelayVerdict, SelectedRecord } from './shapes.js';
import { ProofUnavailableError, type ProofRenderer } from './proof.js';
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
interface Resolved {
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

type Unavailable = Extract<Resolution, { kind: 'unavailable' }>;

const answered = (data: FlightStatusData): Resolution => ({ kind: 'answered', data });

/** The stored body: what a replay answers besides flightNumber, flightDate and meta. */
interface StoredBody {
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

export interface FlightLookupDeps {
  providers: FlightProvider[];
  clock: Clock;
  records: RecordStore;
  logger: Logger;
  providerTimeoutMs: number;
  proof: ProofRenderer;
  airports: ReferenceAirports;
  /** Why a disrupted flight was disrupted (docs/flight-lookup.md, "Circumstances"); absent: no circumstances are given. */
  circumstances?: CircumstancesService;
}

export class FlightLookupService implements FlightResolver {
  private readonly inflight = new Map<string, { promise: Promise<Resolved | Unavailable>; controller: AbortController; waiters: number }>();

  /** Requests whose replay found no stored record: their `resolve` that follows does not read the store again. */
  private readonly missed = new WeakSet<ResolveContext>();

  constructor(private readonly deps: FlightLookupDeps) {}

  /** A settled record's replay, as the JSON of `data` (see FlightResolver.replay); null when there is none to replay. */
  async replay(query: FlightQuery, context: ResolveContext): Promise<string | null> {
    if (query.refresh || query.screenshot) return null;
    const stored = await this.stored(query, context);
    if (!stored) {
      this.missed.add(context);
      return null;
    }
    const head = `{"flightNumber":${JSON.stringify(query.flightNumber)},"flightDate":"${query.flightDate}","dateBasis":"utc","meta":${JSON.stringify(stored.meta)},`;
    return head + withLocalTimes(stored.body, query.flightDate, this.deps.airports).slice(1);
  }

  async resolve(query: FlightQuery, context: ResolveContext): Promise<Resolution> {
    const { clock } = this.deps;
    const startedAt = clock.now();
    const started = performance.now();

    // The route's replay has just read the store for this request and found nothing: not again.
    const stored = query.refresh || this.missed.delete(context) ? null : await this.stored(query, context);
    if (stored) {
      const body = JSON.parse(withLocalTimes(stored.body, query.flightDate, this.deps.airports)) as StoredBody;
      return answered(await this.withProof(query, { flightNumber: query.flightNumber, flightDate: query.flightDate, dateBasis: 'utc', ...body, meta: stored.meta }));
    }

    // The query takes 2 to 12 characters (README.md, "The API"); one that cannot be a designator names no flight a provider holds.
    const resolved = isDesignator(query.flightNumber) ? await this.join(query, context) : this.notADesignator(query);
    if (resolved.kind === 'unavailable') return resolved;
    const finished = performance.now();
    return answered(await this.withProof(query, {
      flightNumber: query.flightNumber,
      flightDate: query.flightDate,
      dateBasis: 'utc',
      originIata: resolved.selected?.originIata ?? query.origin,
      destinationIata: resolved.selected?.destinationIata ?? query.destination,
      selected: resolved.selected,
      flightDelay: resolved.flightDelay,
      compensation: resolved.compensation,
      circumstances: resolved.circumstances,
      localTimes: localTimesOf(resolved.selected, this.deps.airports),
      meta: {
        durationMs: Math.round((finished - started) * 100) / 100,
        startedAt: iso(startedAt),
        finishedAt: iso(clock.now()),
        cached: false,
        persisted: resolved.persisted,
        recordId: null,
        source: resolved.selected?.source ?? null,
      },
      sources: resolved.sources,
      ...(resolved.rationale ? { rationale: resolved.rationale } : {}),
    }));
  }

  /** The stored record this query replays, with the meta of a replay; null when there is none (or its filter does not match). */
  private async stored(query: FlightQuery, context: ResolveContext): Promise<{ body: string; meta: FlightStatusData['meta'] } | null> {
    const stored = await this.deps.records.find(query.designator, query.flightDate, context.share);
    if (!stored || !matchesFilter(stored, query)) return null;
    const now = iso(this.deps.clock.now());
    return { body: stored.body, meta: { durationMs: 0, startedAt: now, finishedAt: now, cached: true, persisted: false, recordId: null, source: stored.source } };
  }

  /** Not found, with why, and no provider asked (each `skipped`): the request costs its credit as a flight not found does. */
  private notADesignator(query: FlightQuery): Resolved {
    return {
      kind: 'resolved',
      selected: null,
      flightDelay: null,
      compensation: null,
      circumstances: null,
      sources: this.deps.providers.map((p) => ({ provider: p.name, outcome: 'skipped', durationMs: 0, fields: [], times: [], error: null })),
      persisted: false,
      rationale: [
        `${query.flightNumber} cannot be a flight designator (an airline code of 2 characters or 3 letters, then 1 to 4 digits and an optional letter, e.g. W63101), so no flight-data provider was asked: no flight was found.`,
      ],
    };
  }

  /**
   * Attaches the proof image when asked (never stored; replays get one too). Where the renderer
   * cannot run on this machine the lookup is still answered: `proof: null` and the reason.
   */
  async withProof(query: Pick<FlightQuery, 'screenshot'>, data: FlightStatusData): Promise<FlightStatusData> {
    if (!query.screenshot) return data;
    try {
      return { ...data, proof: await this.deps.proof.render(data, this.deps.clock.now()) };
    } catch (error) {
      if (!(error instanceof ProofUnavailableError)) throw error;
      this.deps.logger.warn({ err: error.message }, 'proof image unavailable');
      return { ...data, proof: null, proofError: error.message };
    }
  }

  /** Single flight: identical lookups in flight share one resolve; it is cancelled only when all their clients went away. */
  private async join(query: FlightQuery, context: ResolveContext): Promise<Resolved | Unavailable> {
    const { signal } = context;
    // A batch's resolve (background: it may wait for its share of a provider's budget) is never
    // joined by a single lookup, which must not wait behind it.
    const key = `${query.designator}|${query.flightDate}|${query.origin ?? ''}|${query.destination ?? ''}|${context.call?.background ? 'batch' : ''}`;
    let shared = this.inflight.get(key);
    if (!shared || shared.controller.signal.aborted) {
      const controller = new AbortController();
      const promise = this.resolveLive(query, controller.signal, context.call ?? {}, context.observed, context.share).finally(() => {
        if (this.inflight.get(key)?.promise === promise) this.inflight.delete(key);
      });
      shared = { promise, controller, waiters: 0 };
      this.inflight.set(key, shared);
    }
    const joined = shared;
    joined.waiters++;
    const leave = () => {
      if (--joined.waiters === 0) joined.controller.abort(signal.reason);
    };
    if (signal.aborted) leave();
    else signal.addEventListener('abort', leave, { once: true });
    try {
      return await joined.promise;
    } finally {
      signal.removeEventListener('abort', leave);
    }
  }

  private async resolveLive(
    query: FlightQuery,
    signal: AbortSignal,
    call: NonNullable<ResolveContext['call']>,
    observed?: ObservedFlights,
    share?: ConnectionShare,
  ): Promise<Resolved | Unavailable> {
    const { providers, providerTimeoutMs, clock } = this.deps;
    // The database work of a batch's resolve waits its turn in the batch's share of the pool.
    const database = <T>(work: () => Promise<T>): Promise<T> => (share ? share.run(work) : work());
    const sources: SourceEntry[] = [];
    const matched: Matched[] = [];
    let settled = false;
    if (observed) {
      // What the boards showed final, when they hold all of it, settles the flight as a provider's hit would.
      const began = performance.now();
      const seen = await database(() => observed.find({ designator: query.designator, flightDate: query.flightDate, origin: query.origin, destination: query.destination }));
      const leg = seen ? checked(seen) : null;
      if (leg?.settled) {
        sources.push({ provider: leg.provider, outcome: 'hit', durationMs: Math.round((performance.now() - began) * 100) / 100, fields: [], times: [], error: null });
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
        { designator: query.designator, flightDate: query.flightDate, origin: query.origin, destination: query.destination, ...(known ? { known } : {}) },
        { ...call, signal, timeoutMs: call.timeoutMs ?? providerTimeoutMs },
      );
      const durationMs = Math.round((performance.now() - began) * 100) / 100;
      if (answer.outcome === 'error') {
        this.deps.logger.warn({ provider: provider.name, kind: answer.error.kind, reason: answer.error.message }, 'provider lookup failed');
        sources.push({ provider: provider.name, outcome: 'error', durationMs, fields: [], times: [], error: answer.error });
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
        const answers = sources.map((s) => `${s.provider}: ${s.outcome === 'error' ? `failed (${s.error!.kind})` : s.outcome === 'miss' ? 'not found' : s.outcome}`);
        return {
          kind: 'unavailable',
          message: `No flight data provider could answer for this flight (${answers.join(', ')}); nothing was stored and the request can be retried safely. sources has each provider's answer.`,
          sources,
        };
      }
      return { kind: 'resolved', selected: null, flightDelay: null, compensation: null, circumstances: null, sources, persisted: false };
    }

    const merged = mergeAnswers(matched)!;
    const { selected, flightDelay } = classify(merged);
    const note = utcDateNote(query.flightDate, selected, this.deps.airports);
    if (note && flightDelay) flightDelay.disruption.rationale.push(note);
    const outcome = disruptionOf(selected);
    const circumstances = outcome && this.deps.circumstances && !signal.aborted ? await this.deps.circumstances.assess(merged.flight, outcome, signal, { meter: call.meter, background: call.background, share }) : null;
    const assessed = selected.complete ? assessFlight(this.deps.airports, merged.flight, selected) : null;
    const compensation = assessed && circumstances ? withRisk(assessed, circumstances) : assessed;
    for (const source of sources) {
      source.fields = Object.entries(merged.fieldSources)
        .filter(([, provider]) => provider === source.provider)
        .map(([field]) => field);
      source.times = merged.times.filter((t) => t.provider === source.provider).map(({ field, kind, at }) => ({ field, kind, at: iso(at) }));
    }

    const departedAt = merged.flight.departure.actual ?? merged.flight.departure.scheduled;
    const now = clock.now();
    const persistable =
      PERSISTED_STATUSES.has(selected.status) && selected.complete && departedAt !== null && now - departedAt > SETTLE_WINDOW_MS;
    if (persistable) {
      const body: StoredBody = {
        originIata: selected.originIata,
        destinationIata: selected.destinationIata,
        selected,
        flightDelay,
        compensation,
        circumstances,
        localTimes: localTimesOf(selected, this.deps.airports),
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
      await database(() => this.deps.records.save(row));
    }
    return { kind: 'resolved', selected, flightDelay, compensation, circumstances, sources, persisted: persistable };
  }
}
