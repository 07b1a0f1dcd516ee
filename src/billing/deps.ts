// What billing's parts are built from: the one set of dependencies app.ts (and the CLI) hands the
// BillingService, which passes it on to closing, fees, drafts, charging and the read views.
import type { AccountsService } from '../accounts/index.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/index.js';
import type { Logger } from '../logger.js';
import type { Notices } from '../mail/index.js';
import type { MeteringService } from '../metering/index.js';
import type { PaymentGateway } from './gateway.js';
import type { PlansService } from './plans.js';
import type { BuyerDetails } from './buyer.js';
import type { Seller } from './parties.js';

export interface BillingOptions {
  /** How long after midnight on the 1st a month is closed, so requests in flight at midnight land in it. */
  graceMs: number;
  /** Retries after a declined first charge, as delays from the invoice's opening (default 1, 3 and 5 days). */
  retryDelaysMs: number[];
}

export interface BillingDeps {
  db: Database;
  clock: Clock;
  accounts: AccountsService;
  /** Billing reads the overage it invoices through metering. */
  metering: Pick<MeteringService, 'billableOverage'>;
  plans: PlansService;
  gateway: PaymentGateway;
  logger: Logger;
  options: BillingOptions;
  /** Tells accounts by mail of invoices, receipts, declined charges and past due (notify.ts). */
  notices?: Notices;
  /** The seller on every invoice (FLIGHTSTATUS_SELLER_*), frozen on each when it opens. */
  seller: Seller;
  /** The buyer's details of each account. */
  buyers: BuyerDetails;
}
