// The operator's view of the service clock: GET reads it with the periodic jobs' schedule; POST moves
// a manual clock forward ({"advanceSeconds": N} or {"to": ISO}) and answers once every job that fell
// due on the way has run, in time order. On the system clock POST is refused (409).
import { Type } from 'typebox';
import { iso, parseInstant, type Clock } from '../clock.js';
import { ApiError } from '../http/errors.js';
import { Envelope, errors } from '../http/schemas.js';
import type { HttpServer } from '../http/server.js';
import type { Scheduler } from '../scheduler/index.js';
import { adminScope, common, envelope } from './routes.js';

/** The longest single advance: a year of jobs in one request is already a lot. */
export const MAX_ADVANCE_SECONDS = 366 * 24 * 3600;

const ClockView = Type.Object({
  now: Type.String({ description: 'The service time, ISO 8601 UTC' }),
  mode: Type.Union([Type.Literal('system'), Type.Literal('manual')]),
  jobs: Type.Array(
    Type.Object({
      name: Type.String(),
      intervalSeconds: Type.Number(),
      nextRunAt: Type.String(),
      lastRunAt: Type.Union([Type.String(), Type.Null()]),
      running: Type.Boolean(),
    }),
  ),
});

const Advance = Type.Object(
  {
    advanceSeconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_ADVANCE_SECONDS, description: 'Seconds to move forward' }),
    ),
    to: Type.Optional(
      Type.String({
        description: 'Time to move to, ISO 8601 with its zone; never earlier than now, at most 366 days after it',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1, maxProperties: 1 },
);

const Advanced = Type.Object({
  previous: Type.String(),
  now: Type.String(),
  mode: Type.Literal('manual'),
  runs: Type.Array(
    Type.Object({
      job: Type.String(),
      at: Type.String(),
      ok: Type.Boolean(),
      error: Type.Optional(Type.String()),
      elsewhere: Type.Optional(
        Type.Boolean({ description: 'Another process on the database took this slot of a once-only job' }),
      ),
    }),
  ),
});

export function clockRoutes(app: HttpServer, deps: { adminToken: string; clock: Clock; scheduler: Scheduler }): void {
  const { clock, scheduler } = deps;
  const view = () => ({
    now: iso(clock.now()),
    mode: scheduler.isManual ? ('manual' as const) : ('system' as const),
    jobs: scheduler.state(),
  });

  adminScope(app, deps.adminToken, (admin) => {
    admin.get(
      '/api/admin/v1/clock',
      { schema: { ...common, response: { 200: Envelope(ClockView, 'The service clock'), ...errors(401) } } },
      async () => envelope(view()),
    );

    admin.post(
      '/api/admin/v1/clock',
      {
        config: { runsJobs: true },
        schema: {
          ...common,
          body: Advance,
          response: { 200: Envelope(Advanced, 'The clock after the move'), ...errors(400, 401, 409) },
        },
      },
      async (request) => {
        if (!scheduler.isManual) {
          throw new ApiError(
            'conflict',
            'The service runs on the system clock; start it with FLIGHTSTATUS_CLOCK=manual to move time',
          );
        }
        const previous = clock.now();
        const { advanceSeconds, to } = request.body;
        let target: number;
        if (to !== undefined) {
          const parsed = parseInstant(to);
          if (parsed === null) {
            throw new ApiError(
              'invalid_request',
              `body.to must be an ISO 8601 time with its zone, such as 2026-03-01T12:00:00Z (got "${to.slice(0, 40)}")`,
            );
          }
          target = parsed;
          if (target < previous)
            throw new ApiError('conflict', `The clock never goes back: it is already ${iso(previous)}`);
          // The same bound as advanceSeconds: a far target (year 9999) would run every job slot on
          // the way, holding the clock for as long as that takes.
          if (target - previous > MAX_ADVANCE_SECONDS * 1000) {
            throw new ApiError(
              'invalid_request',
              `body.to must be at most ${MAX_ADVANCE_SECONDS / 86400} days after the service time ${iso(previous)}, as advanceSeconds is (got "${to.slice(0, 40)}"); move in several steps`,
            );
          }
        } else {
          target = previous + advanceSeconds! * 1000;
        }
        const runs = await scheduler.advanceTo(target).catch((error: unknown) => {
          // Another advance got there first and moved the clock past the target.
          if (error instanceof RangeError)
            throw new ApiError('conflict', `The clock never goes back: it is already ${iso(clock.now())}`);
          throw error;
        });
        return envelope({ previous: iso(previous), now: iso(clock.now()), mode: 'manual' as const, runs });
      },
    );
  });
}
