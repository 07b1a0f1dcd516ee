// The flight lookup service (docs/flight-lookup.md): replay a settled disruption when one is stored, else
// resolve it from the providers, classify it, and store it when the caching rules say so (live.ts).
// Identical lookups in flight at the same moment share one resolve; each response gets its own meta.
import { iso } from '../clock.js';
import { localTimesOf, withLocalTimes } from './local.js';
import { isDesignator, type FlightQuery } from './query.js';
import type { FlightResolver, Resolution, ResolveContext } from './resolver.js';
import { matchesFilter } from './records.js';
import type { FlightStatusData } from './schema.js';
import { ProofUnavailableError, type ProofRenderer } from './proof.js';
import { resolveLive, type LiveDeps, type Resolved, type StoredBody, type Unavailable } from './live.js';

const answered = (data: FlightStatusData): Resolution => ({ kind: 'answered', data });

export interface FlightLookupDeps extends LiveDeps {
  proof: ProofRenderer;
}

export class FlightLookupService implements FlightResolver {
  private readonly inflight = new Map<
    string,
    { promise: Promise<Resolved | Unavailable>; controller: AbortController; waiters: number }
  >();

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
      return answered(
        await this.withProof(query, {
          flightNumber: query.flightNumber,
          flightDate: query.flightDate,
          dateBasis: 'utc',
          ...body,
          meta: stored.meta,
        }),
      );
    }

    // The query takes 2 to 12 characters (README.md, "The API"); one that cannot be a designator names no flight a provider holds.
    const resolved = isDesignator(query.flightNumber) ? await this.join(query, context) : this.notADesignator(query);
    if (resolved.kind === 'unavailable') return resolved;
    const finished = performance.now();
    return answered(
      await this.withProof(query, {
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
      }),
    );
  }

  /** The stored record this query replays, with the meta of a replay; null when there is none (or its filter does not match). */
  private async stored(
    query: FlightQuery,
    context: ResolveContext,
  ): Promise<{ body: string; meta: FlightStatusData['meta'] } | null> {
    const stored = await this.deps.records.find(query.designator, query.flightDate, context.share);
    if (!stored || !matchesFilter(stored, query)) return null;
    const now = iso(this.deps.clock.now());
    return {
      body: stored.body,
      meta: {
        durationMs: 0,
        startedAt: now,
        finishedAt: now,
        cached: true,
        persisted: false,
        recordId: null,
        source: stored.source,
      },
    };
  }

  /** Not found, with why, and no provider asked (each `skipped`): the request costs its credit as a flight not found does. */
  private notADesignator(query: FlightQuery): Resolved {
    return {
      kind: 'resolved',
      selected: null,
      flightDelay: null,
      compensation: null,
      circumstances: null,
      sources: this.deps.providers.map((p) => ({
        provider: p.name,
        outcome: 'skipped',
        durationMs: 0,
        fields: [],
        times: [],
        error: null,
      })),
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
      const promise = resolveLive(
        this.deps,
        query,
        controller.signal,
        context.call ?? {},
        context.observed,
        context.share,
      ).finally(() => {
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
}
