// Billing's statements over its invoice tables (invoices, their lines and number counters, credit
// notes, the billing record, the months' runs), as metering and batches keep theirs: the rules
// (drafts.ts, charging.ts, credit-notes.ts, closing.ts, fees.ts, notify.ts, views.ts) decide, this
// reads and writes. `transaction` hands the work a store whose statements run in one transaction.
// The plan catalogue, the buyers' details and the billing email's links: details-store.ts.
import type { CompiledQuery, Insertable, Kysely, Selectable } from 'kysely';
import type {
  AccountBillingTable,
  BillingEventsTable,
  CreditNotesTable,
  Database,
  DatabaseSchema,
  InvoiceLinesTable,
  InvoicesTable,
} from '../db/index.js';
import { billingDialect, type BillingDialect } from './dialect.js';
import type { InvoiceKind, InvoiceState } from './invoice.js';

type Invoice = Selectable<InvoicesTable>;
/** A billing_events row to write: every state change is recorded in the transaction that makes it. */
export type BillingEvent = Omit<BillingEventsTable, 'id'>;
/** Which number sequence: FS-… invoices or CN-… credit notes (each one row of invoice_numbers). */
export type Counter = 'invoice' | 'credit_note';

export interface InvoiceFilter {
  accountId?: string;
  /** Customers never see drafts. */
  customer?: boolean;
  state?: InvoiceState;
  kind?: InvoiceKind;
  /** Invoices whose period starts in [from, to). */
  period?: { from: number; to: number };
  /** The page before this invoice (created_at, id), newest first. */
  before?: { createdAt: number; id: string };
  limit: number;
}

/** The store over the service's database (its dialect's way of holding rows). */
export function billingStore(db: Database): BillingStore {
  return new BillingStore(db.kysely, billingDialect(db));
}

export class BillingStore {
  constructor(
    private readonly q: Kysely<DatabaseSchema>,
    private readonly dialect: BillingDialect,
  ) {}

  /** `work` in one transaction, its statements through the store it is handed (thrown errors roll it back). */
  transaction<T>(work: (store: BillingStore) => Promise<T>): Promise<T> {
    return this.q.transaction().execute((trx) => work(new BillingStore(trx, this.dialect)));
  }

  /** Another capability's statement (accounts' billing status, names) in this store's transaction. */
  async run<R>(query: CompiledQuery<R>): Promise<{ rows: R[]; changed: number }> {
    const result = await this.q.executeQuery(query);
    return { rows: result.rows, changed: Number(result.numAffectedRows ?? 0) };
  }

  async record(event: BillingEvent): Promise<void> {
    await this.q.insertInto('billing_events').values(event).execute();
  }

  /** Moves a counter on by `count`; the last number taken (the first is `last - count + 1`). */
  async takeNumbers(counter: Counter, count: number): Promise<number> {
    const row = await this.q
      .updateTable('invoice_numbers')
      .set((eb) => ({ last: eb('last', '+', count) }))
      .where('id', '=', counter)
      .returning('last')
      .executeTakeFirstOrThrow();
    return Number(row.last);
  }

  // Invoices

  /** Inserts a draft with its lines unless its account, kind and period have one; true when written. */
  async insertDraft(row: Insertable<InvoicesTable>, lines: Omit<InvoiceLinesTable, 'invoice_id'>[]): Promise<boolean> {
    const inserted = await this.q
      .insertInto('invoices')
      .values(row)
      .onConflict((oc) => oc.columns(['account_id', 'kind', 'period_start']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) return false;
    await this.q
      .insertInto('invoice_lines')
      .values(lines.map((line) => ({ ...line, invoice_id: row.id })))
      .execute();
    return true;
  }

  /** Up to `limit` drafts to open, oldest first, held in this transaction (dialect.ts). */
  draftsToOpen(limit: number): Promise<{ id: string; account_id: string; total_minor: number }[]> {
    return this.dialect.draftsToOpen(this.q, limit);
  }

  /** One invoice, held in this transaction while it changes (dialect.ts). */
  invoiceForUpdate(id: string): Promise<Invoice | undefined> {
    return this.dialect.invoiceForUpdate(this.q, id);
  }

  async setInvoice(id: string, set: Partial<InvoicesTable>): Promise<void> {
    await this.q.updateTable('invoices').set(set).where('id', '=', id).execute();
  }

  /** Changes the invoice only while it is in `state`; false when it changed meanwhile. */
  async setInvoiceIn(id: string, state: InvoiceState, set: Partial<InvoicesTable>): Promise<boolean> {
    const updated = await this.q
      .updateTable('invoices')
      .set(set)
      .where('id', '=', id)
      .where('state', '=', state)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  }

  invoice(id: string, accountId?: string): Promise<Invoice | undefined> {
    let query = this.q.selectFrom('invoices').selectAll().where('id', '=', id);
    if (accountId !== undefined) query = query.where('account_id', '=', accountId).where('state', '!=', 'draft');
    return query.executeTakeFirst();
  }

  /** Newest first. */
  invoices(filter: InvoiceFilter): Promise<Invoice[]> {
    let query = this.q.selectFrom('invoices').selectAll();
    if (filter.accountId !== undefined) query = query.where('account_id', '=', filter.accountId);
    if (filter.customer) query = query.where('state', '!=', 'draft');
    if (filter.state !== undefined) query = query.where('state', '=', filter.state);
    if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
    if (filter.period !== undefined)
      query = query.where('period_start', '>=', filter.period.from).where('period_start', '<', filter.period.to);
    const before = filter.before;
    if (before !== undefined)
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '<', before.createdAt),
          eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
        ]),
      );
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
  }

  lines(invoiceIds: string[]): Promise<Selectable<InvoiceLinesTable>[]> {
    return this.q
      .selectFrom('invoice_lines')
      .selectAll()
      .where('invoice_id', 'in', invoiceIds)
      .orderBy('invoice_id')
      .orderBy('line')
      .execute();
  }

  /** Open invoices whose charge is due at `at`, in the order they are charged. */
  async dueCharges(at: number): Promise<string[]> {
    const rows = await this.q
      .selectFrom('invoices')
      .select('id')
      .where('state', '=', 'open')
      .where('next_attempt_at', '<=', at)
      .orderBy('next_attempt_at')
      .orderBy('id')
      .execute();
    return rows.map((r) => r.id);
  }

  /** The account's open, overdue invoice that holds it past due (the oldest), if any. */
  async overdueInvoice(accountId: string): Promise<string | undefined> {
    const row = await this.q
      .selectFrom('invoices')
      .select('id')
      .where('account_id', '=', accountId)
      .where('state', '=', 'open')
      .where('overdue', '=', 1)
      .orderBy('finalized_at')
      .executeTakeFirst();
    return row?.id;
  }

  /** Fee invoices of windows starting after `since`, as "account period_start" keys. */
  async feeWindowsSince(since: number): Promise<Set<string>> {
    const rows = await this.q
      .selectFrom('invoices')
      .select(['account_id', 'period_start'])
      .where('kind', '=', 'fee')
      .where('period_start', '>', since)
      .execute();
    return new Set(rows.map((r) => `${r.account_id} ${Number(r.period_start)}`));
  }

  /** The billing details of these accounts (buyer.ts's rows), read in the transaction that opens their invoices. */
  async buyers(accountIds: string[]): Promise<Map<string, AccountBillingTable>> {
    const rows =
      accountIds.length === 0
        ? []
        : await this.q.selectFrom('account_billing').selectAll().where('account_id', 'in', accountIds).execute();
    return new Map(rows.map((r) => [r.account_id, r]));
  }

  // Credit notes

  /** The net and tax already credited on an invoice. */
  async credited(invoiceId: string): Promise<{ net: number; tax: number }> {
    const row = await this.q
      .selectFrom('credit_notes')
      .select((eb) => [
        eb.fn.coalesce(eb.fn.sum<number>('net_minor'), eb.lit(0)).as('net'),
        eb.fn.coalesce(eb.fn.sum<number>('tax_minor'), eb.lit(0)).as('tax'),
      ])
      .where('invoice_id', '=', invoiceId)
      .executeTakeFirstOrThrow();
    return { net: Number(row.net), tax: Number(row.tax) };
  }

  async insertCreditNote(row: CreditNotesTable): Promise<void> {
    await this.q.insertInto('credit_notes').values(row).execute();
  }

  /** One credit note with its invoice's number; `accountId` limits it to that account. */
  creditNote(
    id: string,
    accountId?: string,
  ): Promise<(CreditNotesTable & { invoice_number: number | null }) | undefined> {
    let query = this.q
      .selectFrom('credit_notes')
      .innerJoin('invoices', 'invoices.id', 'credit_notes.invoice_id')
      .selectAll('credit_notes')
      .select('invoices.number as invoice_number')
      .where('credit_notes.id', '=', id);
    if (accountId !== undefined) query = query.where('credit_notes.account_id', '=', accountId);
    return query.executeTakeFirst();
  }

  /** The credit notes of these invoices, oldest first. */
  async creditNotesOf(invoiceIds: string[]): Promise<CreditNotesTable[]> {
    if (invoiceIds.length === 0) return [];
    return this.q
      .selectFrom('credit_notes')
      .selectAll()
      .where('invoice_id', 'in', invoiceIds)
      .orderBy('number')
      .execute();
  }

  // The billing record

  /** The recorded changes of an invoice, or (`subject` 'account') an account's subscription, oldest first. */
  events(
    of: { invoiceId: string } | { accountId: string; subject: 'account' },
  ): Promise<Selectable<BillingEventsTable>[]> {
    const query = this.q.selectFrom('billing_events').selectAll();
    const scoped =
      'invoiceId' in of
        ? query.where('invoice_id', '=', of.invoiceId)
        : query.where('account_id', '=', of.accountId).where('subject', '=', of.subject);
    return scoped.orderBy('id').execute();
  }

  /** Whether this exact event was recorded already (a gateway's event delivered twice). */
  async recorded(event: Pick<BillingEvent, 'invoice_id' | 'subject' | 'to_state' | 'reason'>): Promise<boolean> {
    const seen = await this.q
      .selectFrom('billing_events')
      .select('id')
      .where('invoice_id', '=', event.invoice_id)
      .where('subject', '=', event.subject)
      .where('to_state', '=', event.to_state)
      .where('reason', '=', event.reason)
      .executeTakeFirst();
    return seen !== undefined;
  }

  /** The events in (from, to] that people are told of by mail (notify.ts), oldest first. */
  eventsToTell(from: number, to: number): Promise<Selectable<BillingEventsTable>[]> {
    return this.q
      .selectFrom('billing_events')
      .selectAll()
      .where('at', '>', from)
      .where('at', '<=', to)
      .where((eb) =>
        eb.or([
          eb.and([eb('subject', '=', 'invoice'), eb('to_state', 'in', ['open', 'paid'])]),
          eb.and([eb('subject', '=', 'charge'), eb('to_state', '=', 'declined')]),
          eb.and([eb('subject', '=', 'account'), eb('to_state', '=', 'past_due')]),
          eb.and([eb('subject', '=', 'credit_note'), eb('to_state', '=', 'issued')]),
        ]),
      )
      .orderBy('id')
      .execute();
  }

  /** The invoice's declined charges recorded up to and including event `eventId`. */
  async declinedUpTo(invoiceId: string, eventId: number): Promise<number> {
    const row = await this.q
      .selectFrom('billing_events')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('invoice_id', '=', invoiceId)
      .where('subject', '=', 'charge')
      .where('to_state', '=', 'declined')
      .where('id', '<=', eventId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  // The months' runs

  /** The latest month a run finished, if any. */
  async lastClosedMonth(): Promise<number | null> {
    const done = await this.q
      .selectFrom('billing_runs')
      .select((eb) => eb.fn.max('period_start').as('latest'))
      .where('finished_at', 'is not', null)
      .executeTakeFirst();
    return done?.latest == null ? null : Number(done.latest);
  }

  async startRun(period: number, at: number): Promise<void> {
    await this.q
      .insertInto('billing_runs')
      .values({ period_start: period, started_at: at, finished_at: null, invoices: 0 })
      .onConflict((oc) => oc.column('period_start').doNothing())
      .execute();
  }

  async finishRun(period: number, at: number, written: number): Promise<void> {
    await this.q
      .updateTable('billing_runs')
      .set((eb) => ({ finished_at: at, invoices: eb('invoices', '+', written) }))
      .where('period_start', '=', period)
      .execute();
  }
}
