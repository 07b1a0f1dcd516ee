// The operator API (docs/operator.md) as the app builds it, behind FLIGHTSTATUS_ADMIN_TOKEN: none of
// it exists without a token. Every role keeps the clock, the service report and the metrics (how a
// multi-process deployment is driven and checked); the rest is the API processes'.
import type { AccountsService } from '../accounts/index.js';
import type { AirportAdditions } from '../airports/index.js';
import type { BillingService, PlansService } from '../billing/index.js';
import type { Capability } from '../capability.js';
import type { Clock } from '../clock.js';
import type { Role } from '../config.js';
import type { Database } from '../db/index.js';
import type { HttpServer } from '../http/server.js';
import type { MailService } from '../mail/index.js';
import type { MeteringService } from '../metering/index.js';
import type { Metrics } from '../metrics/index.js';
import type { FlightProvider } from '../providers/index.js';
import type { Scheduler } from '../scheduler/index.js';
import type { SimWorld } from '../sim/index.js';
import type { WeatherProvider } from '../weather/index.js';
import { airportAdminRoutes } from './airport-routes.js';
import { clockRoutes } from './clock-routes.js';
import { invoiceAdminRoutes } from './invoice-routes.js';
import { mailRoutes } from './mail-routes.js';
import { metricsRoutes } from './metrics-routes.js';
import { planRoutes } from './plan-routes.js';
import { providerRoutes } from './provider-routes.js';
import { adminRoutes } from './routes.js';
import { serviceRoutes } from './service-routes.js';
import { simRoutes } from './sim-routes.js';

export interface OperatorSetup {
  adminToken: string | null;
  role: Role;
  clock: Clock;
  db: Database;
  metrics: Metrics;
  scheduler: Scheduler;
  /** This process's name in the `once` jobs' claims. */
  holder: string;
  accounts: AccountsService;
  metering: MeteringService;
  billing: BillingService;
  plans: PlansService;
  mail: MailService;
  providers: FlightProvider[];
  weather: WeatherProvider;
  providerTimeoutMs: number;
  /** The airport catalogue and the operator's additions to it. */
  additions: AirportAdditions;
  /** The simulated world, when it is a configured provider (its truth and its controls). */
  world: SimWorld | null;
}

export function operatorCapability(o: OperatorSetup): Capability<HttpServer> {
  const { adminToken, clock } = o;
  if (!adminToken) return {};
  return {
    everyRole: (scope) => {
      metricsRoutes(scope, { adminToken, metrics: o.metrics });
      clockRoutes(scope, { adminToken, clock, scheduler: o.scheduler });
      serviceRoutes(scope, { adminToken, clock, db: o.db, scheduler: o.scheduler, role: o.role, holder: o.holder });
    },
    routes: (scope) => {
      adminRoutes(scope, { adminToken, accounts: o.accounts, metering: o.metering, clock, billing: o.billing });
      providerRoutes(scope, {
        adminToken,
        providers: o.providers,
        weather: o.weather,
        providerTimeoutMs: o.providerTimeoutMs,
      });
      planRoutes(scope, { adminToken, plans: o.plans });
      airportAdminRoutes(scope, { adminToken, additions: o.additions });
      invoiceAdminRoutes(scope, { adminToken, billing: o.billing, accounts: o.accounts, clock });
      mailRoutes(scope, { adminToken, mail: o.mail, accounts: o.accounts });
      if (o.world) simRoutes(scope, { adminToken, world: o.world, catalogue: o.additions.catalogue });
    },
  };
}
