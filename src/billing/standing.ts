// An account's standing follows its invoices (docs/billing.md): past due (402) when dunning runs out
// on one, active again once no open invoice of it is overdue. Written through the accounts
// capability's statement, inside the transaction that changed the invoice, and recorded with it.
import type { AccountsService } from '../accounts/index.js';
import type { BillingStatus } from '../db/index.js';
import type { BillingStore } from './store.js';

type Accounts = Pick<AccountsService, 'billingStatusQuery'>;

/** Past due → active once no open invoice of the account is overdue. */
export async function releaseAccount(
  tx: BillingStore,
  accounts: Accounts,
  accountId: string,
  at: number,
  reason: string,
): Promise<void> {
  if ((await tx.overdueInvoice(accountId)) === undefined)
    await moveAccount(tx, accounts, accountId, 'past_due', 'active', at, reason);
}

/** Moves the subscription from `from` to `to` (only from it) and records why; true when it moved. */
export async function moveAccount(
  tx: BillingStore,
  accounts: Accounts,
  accountId: string,
  from: BillingStatus,
  to: BillingStatus,
  at: number,
  reason: string,
): Promise<boolean> {
  if ((await tx.run(accounts.billingStatusQuery(accountId, from, to, at))).changed !== 1) return false;
  await tx.record({
    at,
    account_id: accountId,
    invoice_id: null,
    subject: 'account',
    from_state: from,
    to_state: to,
    reason,
  });
  return true;
}
