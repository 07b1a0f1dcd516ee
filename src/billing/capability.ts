// Billing as the app builds it: the invoices' service over the configured gateway, the customers'
// invoice routes, Stripe's signed events (where a signing secret is set), and the `billing` job
// (`once`: invoices are unique per account and period anyway; one process doing the month's work
// spares the others from racing it).
import type { Capability } from '../capability.js';
import { systemClock } from '../clock.js';
import type { BillingConfig } from '../config.js';
import type { HttpServer } from '../http/server.js';
import { gatewayFor } from './choose-gateway.js';
import type { BillingDeps } from './deps.js';
import { invoiceRoutes } from './routes.js';
import { BillingService } from './service.js';
import { stripeEventRoutes } from './stripe-routes.js';

export function billingCapability(deps: Omit<BillingDeps, 'gateway' | 'options'>, config: BillingConfig) {
  const billing = new BillingService({
    ...deps,
    gateway: gatewayFor(config),
    options: { graceMs: config.graceMs, retryDelaysMs: config.retryDelaysMs },
  });
  const signingSecret = config.stripe?.webhookSecret;
  return {
    billing,
    routes: (scope) => {
      invoiceRoutes(scope, { billing });
      if (signingSecret) stripeEventRoutes(scope, { billing, signingSecret, wallClock: systemClock });
    },
    leased: { invoice_charges: () => billing.chargeCounts() },
    jobs: [
      {
        name: 'billing',
        intervalMs: config.intervalMs,
        once: true,
        run: async (at, stopping) => {
          const report = await billing.run(at, stopping);
          const c = report.charged;
          if (
            report.monthsClosed.length + report.feeInvoices + report.opened + c.succeeded + c.declined + c.unavailable >
            0
          )
            deps.logger.info(report, 'billing run');
        },
      },
    ],
  } satisfies Capability<HttpServer> & Record<string, unknown>;
}
