// GET /api/admin/v1/service: which service answers, and on which database and clock. The CLI asks it
// before touching the database, so it can refuse to write to a different database than the running
// service's and take "now" from the service's clock (docs/operator.md, "The CLI and the service").
import { Type } from 'typebox';
import { iso, type Clock } from '../clock.js';
import type { Role } from '../config.js';
import { readDatabaseIdentity, type Database } from '../db/index.js';
import { Envelope, errors } from '../http/schemas.js';
import type { HttpServer } from '../http/server.js';
import type { Scheduler } from '../scheduler/index.js';
import { VERSION } from '../version.js';
import { adminScope, common, envelope } from './routes.js';

const ServiceView = Type.Object({
  service: Type.Literal('flightstatus'),
  version: Type.String(),
  database: Type.Object({
    id: Type.Union([Type.String(), Type.Null()], { description: 'The random id stored in the database at migration' }),
    description: Type.String({ description: 'Where the data lives, password redacted' }),
  }),
  clock: Type.Object({ now: Type.String(), mode: Type.Union([Type.Literal('system'), Type.Literal('manual')]) }),
  role: Type.Union([Type.Literal('all'), Type.Literal('api'), Type.Literal('worker')], {
    description: 'What this process does (FLIGHTSTATUS_ROLE)',
  }),
  process: Type.String({ description: 'host:pid, as job runs record their holder' }),
});

export function serviceRoutes(
  app: HttpServer,
  deps: { adminToken: string; clock: Clock; db: Database; scheduler: Scheduler; role: Role; holder: string },
): void {
  const { clock, db, scheduler } = deps;
  let databaseId: string | null = null;
  adminScope(app, deps.adminToken, (admin) => {
    admin.get(
      '/api/admin/v1/service',
      { schema: { ...common, response: { 200: Envelope(ServiceView, 'The running service'), ...errors(401) } } },
      async () => {
        // The id never changes once written (the service migrates before it listens).
        databaseId ??= await readDatabaseIdentity(db);
        return envelope({
          service: 'flightstatus' as const,
          version: VERSION,
          database: { id: databaseId, description: db.description },
          clock: { now: iso(clock.now()), mode: scheduler.isManual ? ('manual' as const) : ('system' as const) },
          role: deps.role,
          process: deps.holder,
        });
      },
    );
  });
}
