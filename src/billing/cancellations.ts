// A subscription the customer canceled ends with its window (docs/billing.md, "Subscriptions"): the
// invoicing job, before it issues the next window's fees, moves each account whose cancellation is
// due to `canceled` (402 from then on, no fee for the next window), recording why in the same
// transaction. Requests between the window's end and the job's run (at most one interval) are
// served and metered as before.
import type { AccountsService } from '../accounts/index.js';
import type { BillingStore } from './store.js';

/** Ends every cancellation due at `at`; how many ended. */
export async function endCanceled(accounts: AccountsService, store: BillingStore, at: number): Promise<number> {
  let ended = 0;
  for (const account of await accounts.dueCancellations(at)) {
    ended += await store.transaction(async (tx) => {
      if ((await tx.run(accounts.cancellationQuery(account.id, account.billing_status, at))).changed !== 1) return 0;
      await tx.record({
        at,
        account_id: account.id,
        invoice_id: null,
        subject: 'account',
        from_state: account.billing_status,
        to_state: 'canceled',
        reason: 'canceled by the customer at the end of the window',
      });
      return 1;
    });
  }
  return ended;
}
