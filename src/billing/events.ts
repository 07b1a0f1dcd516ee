// The billing record: every state change (an invoice's, a charge attempt's, an account's
// subscription) is a billing_events row written in the same transaction as the change.
import type { Transaction } from 'kysely';
import type { BillingEventsTable, DatabaseSchema } from '../db/index.js';

export type Tx = Transaction<DatabaseSchema>;

export async function record(trx: Tx, event: Omit<BillingEventsTable, 'id'>): Promise<void> {
  await trx.insertInto('billing_events').values(event).execute();
}
