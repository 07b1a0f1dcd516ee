// What a capability hands the composition root (docs/architecture.md "Capabilities plug themselves
// in"): its routes as a Fastify plugin (registered in a scope of its own, so the hooks and handlers
// it adds reach only its routes), its jobs with their schedules, what it prunes, and how it stops.
// app.ts lists the capabilities and filters them by the process's role; nothing else about a
// capability is known there. Each capability builds its own services in its `capability.ts` and
// exposes the ones others need beside these fields.

/** A periodic job on the service clock (the scheduler runs it in processes that work). */
export interface Job {
  /** Stable name, shown to operators. */
  name: string;
  intervalMs: number;
  /**
   * Does one run as of `at` (the clock's time when it fell due). `stopping` aborts when the process
   * shuts down: a long run ends at its next safe point (what it did is kept; the rest waits for the
   * next slot).
   */
  run(at: number, stopping: AbortSignal): Promise<void>;
  /** Each slot runs in one process only, across every process on the database (board poll, invoicing, pruning). */
  once?: boolean;
}

/** Rows removed by one prune, per table (the `flightstatus_pruned_rows_total` metric's label). */
export type Pruned = Record<string, number>;

/** `Scope` is the HTTP server's type (http/server.ts), which the shared helpers do not import. */
export interface Capability<Scope = unknown> {
  /** Its public routes (the API, the dashboard, operator routes of the API): registered in an encapsulated scope by processes that serve. */
  routes?: (scope: Scope) => void | Promise<void>;
  /** Routes every role keeps, workers too (the operator's clock, service report and metrics). */
  everyRole?: (scope: Scope) => void | Promise<void>;
  /** Periodic jobs, registered by processes that work. */
  jobs?: Job[];
  /** What the hourly prune job forgets (scheduler/prune.ts), as of `at`, ending early when `stopping` aborts. */
  prune?(at: number, stopping: AbortSignal): Promise<Pruned>;
  /** Starts a loop of its own in processes that work (the batch runner). */
  start?(): void;
  /** Its leased work (leases/) counted for the metrics: rows due that no one holds, and rows held, per kind of work. */
  leased?: Record<string, () => Promise<{ due: number; held: number }>>;
  /** Stops taking work; every capability's stop runs together when the process closes, before `close`. */
  stop?(): Promise<void>;
  /** Lets go of what it holds once every capability has stopped (sockets, timers), before the database closes. */
  close?(): void;
}
