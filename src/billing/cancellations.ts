// A subscription the customer canceled ends with its window (docs/billing.md, "Subscriptions"): the
// invoicing job, before it issues the next window's fees, moves each account whose cancellation is
// due to `canceled` (402 from then on, no fee for the next window), recording why in the same
// transaction. Requests between the window's end and the job's run (at most one interval) are
// served and metered as before.
import type { BillingDeps } from './deps.js';
import { record } from './events.js';

/** Ends every cancellation due at `at`; how many ended. */
export async function endCanceled(o: Pick<BillingDeps, 'db' | 'accounts'>, at: number): Promise<number> {
  let ended = 0;
  for (const account of await o.accounts.dueCancellations(at)) {
    ended += await o.db.kysely.transaction().execute(async (trx) => {
      const result = await trx.executeQuery(o.accounts.cancellationQuery(account.id, account.billing_status, at));
      if (Number(result.numAffectedRows ?? 0) !== 1) return 0;
      await record(trx, { at, account_id: account.id, invoice_id: null, subject: 'account', from_state: account.billing_status, to_state: 'canceled', reason: 'canceled by the customer at the end of the window' });
      return 1;
    });
  }
  return ended;
}
