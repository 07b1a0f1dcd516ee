// The read views of billing: one invoice or a page of them as their readers see them (customer API,
// dashboard, HTML page, PDF, operator API), and the recorded history of an invoice or an account.
import type { Selectable } from 'kysely';
import type { Result } from '../result.js';
import { iso } from '../clock.js';
import type { BillingEventsTable, InvoicesTable } from '../db/index.js';
import { nextMonth } from './calendar.js';
import type { BillingDeps } from './deps.js';
import { creditNoteRef, type CreditNotes } from './credit-notes.js';
import {
  invoiceNumber,
  type InvoiceKind,
  type InvoiceLineView,
  type InvoiceState,
  type InvoiceView,
  type PartyView,
} from './invoice.js';
import type { FrozenParty } from './issue.js';
import { formatAmount, formatUnitPrice, MICRO } from './money.js';
import { countryName } from './parties.js';
import type { BillingStore, InvoiceFilter } from './store.js';
import { ratePercent, taxNote, type TaxTreatment } from './tax.js';

export interface BillingEventView {
  at: string;
  subject: string;
  from: string | null;
  to: string;
  reason: string;
}

export class InvoiceReader {
  constructor(
    private readonly o: Pick<BillingDeps, 'accounts' | 'gateway' | 'seller' | 'buyers'>,
    private readonly store: BillingStore,
    private readonly creditNotes: CreditNotes,
  ) {}

  /** One invoice as its readers see it; `accountId` limits it to that account (the customer's view). */
  async invoice(id: string, accountId?: string): Promise<Result<InvoiceView>> {
    const row = await this.store.invoice(id, accountId);
    if (!row) return { kind: 'not_found', message: `No invoice with id ${JSON.stringify(id.slice(0, 60))}` };
    return { kind: 'ok', value: (await this.views([row]))[0]! };
  }

  /** Newest first. Customers (with `accountId`) never see drafts. `before`: an invoice id, for the next page. */
  async list(filter: {
    accountId?: string;
    customer?: boolean;
    state?: InvoiceState;
    kind?: InvoiceKind;
    period?: number;
    limit: number;
    before?: string;
  }): Promise<Result<InvoiceView[]>> {
    let before: InvoiceFilter['before'];
    if (filter.before !== undefined) {
      const cursor = await this.store.invoice(filter.before);
      if (!cursor)
        return { kind: 'invalid', message: `before: no invoice with id ${JSON.stringify(filter.before.slice(0, 60))}` };
      before = { createdAt: Number(cursor.created_at), id: cursor.id };
    }
    const period = filter.period === undefined ? undefined : { from: filter.period, to: nextMonth(filter.period) };
    const rows = await this.store.invoices({ ...filter, period, before });
    return { kind: 'ok', value: await this.views(rows) };
  }

  /** Every recorded change of an invoice (its states and charge attempts), oldest first. */
  async history(id: string): Promise<BillingEventView[]> {
    return (await this.store.events({ invoiceId: id })).map(eventView);
  }

  /** An account's subscription changes (past due and back), oldest first. */
  async accountHistory(accountId: string): Promise<BillingEventView[]> {
    return (await this.store.events({ accountId, subject: 'account' })).map(eventView);
  }

  private async views(rows: InvoicesTable[]): Promise<InvoiceView[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const lines = await this.store.lines(ids);
    const credits = await this.creditNotes.of(ids);
    const accounts = new Map<string, { slug: string; name: string }>();
    for (const accountId of new Set(rows.map((r) => r.account_id))) {
      const account = await this.o.accounts.find(accountId);
      accounts.set(accountId, { slug: account?.slug ?? '', name: account?.name ?? '' });
    }
    const views: InvoiceView[] = [];
    for (const row of rows) {
      const account = accounts.get(row.account_id)!;
      const money = (minor: number) => formatAmount(minor, row.currency);
      // Frozen when it opened; a draft shows the parties as they are now. An invoice opened before
      // they were frozen (0020) shows what it showed then: the seller's name and the account's.
      const draft = row.number === null;
      const seller: FrozenParty =
        row.seller_json !== null
          ? parseParty(row.seller_json)
          : draft
            ? this.o.seller
            : { ...NAMES_ONLY, name: this.o.seller.name };
      const buyer: FrozenParty =
        row.buyer_json !== null
          ? parseParty(row.buyer_json)
          : draft
            ? await this.o.buyers.get(row.account_id)
            : NAMES_ONLY;
      const totalMinor = Number(row.total_minor);
      const netMinor = row.net_minor === null ? totalMinor : Number(row.net_minor);
      const taxMinor = row.tax_minor === null ? 0 : Number(row.tax_minor);
      const treatment = row.tax_treatment as TaxTreatment | null;
      const number = row.number === null ? null : invoiceNumber(row.number);
      const noted = credits.filter((c) => c.invoice_id === row.id);
      const dueDate = row.due_at === null ? null : iso(Number(row.due_at)).slice(0, 10);
      views.push({
        id: row.id,
        number,
        accountId: row.account_id,
        accountSlug: account.slug,
        accountName: account.name,
        kind: row.kind,
        state: row.state,
        currency: row.currency,
        total: money(totalMinor),
        totalMinor,
        net: money(netMinor),
        netMinor,
        tax: money(taxMinor),
        taxMinor,
        taxTreatment: treatment,
        taxNote: treatment === null ? null : taxNote(treatment, row.tax_rate_bp ?? 0, row.tax_country),
        taxLines:
          treatment === null
            ? []
            : [
                {
                  ratePercent: ratePercent(row.tax_rate_bp ?? 0),
                  country: row.tax_country,
                  taxable: money(netMinor),
                  taxableMinor: netMinor,
                  tax: money(taxMinor),
                  taxMinor,
                },
              ],
        seller: party(seller, ''),
        buyer: party(buyer, account.name),
        dueDate,
        paymentInstructions: number === null ? null : this.instructions(seller, number, dueDate),
        periodStart: iso(Number(row.period_start)),
        periodEnd: iso(Number(row.period_end)),
        periodFirstDay: iso(Number(row.period_start)).slice(0, 10),
        periodLastDay: iso(Math.max(Number(row.period_start), Number(row.period_end) - 1)).slice(0, 10),
        createdAt: iso(Number(row.created_at)),
        finalizedAt: row.finalized_at === null ? null : iso(Number(row.finalized_at)),
        paidAt: row.paid_at === null ? null : iso(Number(row.paid_at)),
        nextAttemptAt:
          row.next_attempt_at === null || row.state !== 'open' || !this.o.gateway.charges
            ? null
            : iso(Number(row.next_attempt_at)),
        attempts: row.attempts,
        lines: lines
          .filter((l) => l.invoice_id === row.id)
          .map((l): InvoiceLineView => ({
            description: l.description,
            planId: l.plan_id,
            quantity: Number(l.quantity),
            unitPrice:
              row.kind === 'overage'
                ? formatUnitPrice(Number(l.unit_price_micro_minor), row.currency)
                : formatAmount(Number(l.unit_price_micro_minor) / MICRO, row.currency),
            amount: formatAmount(Number(l.amount_minor), row.currency),
            amountMinor: Number(l.amount_minor),
          })),
        creditNotes: noted.map(creditNoteRef),
        creditedMinor: noted.reduce((sum, c) => sum + Number(c.total_minor), 0),
      });
    }
    return views;
  }

  /** How to pay, as frozen on the invoice: charged by the gateway, or by transfer to the seller's details, quoting the number. */
  private instructions(seller: FrozenParty, number: string, dueDate: string | null): string {
    const by = dueDate === null ? '' : ` by ${dueDate}`;
    const transfer = seller.paymentDetails
      ? `pay by bank transfer to ${seller.paymentDetails}, quoting ${number}${by}`
      : null;
    if (seller.charges ?? this.o.gateway.charges)
      return `Charged automatically to the payment method on file${transfer ? `; or ${transfer}` : ''}.`;
    if (transfer) return `${transfer[0]!.toUpperCase()}${transfer.slice(1)}.`;
    return `Pay${by} as agreed with ${seller.name ?? 'the seller'}${seller.email ? ` (${seller.email})` : ''}, quoting ${number}.`;
  }
}

const parseParty = (json: string): FrozenParty => JSON.parse(json) as FrozenParty;
const NAMES_ONLY: FrozenParty = {
  name: null,
  address: [],
  country: null,
  vatId: null,
  email: null,
  paymentDetails: null,
};

function party(p: FrozenParty, fallbackName: string): PartyView {
  return {
    name: p.name ?? fallbackName,
    address: p.address,
    country: p.country,
    countryName: p.country === null ? null : countryName(p.country),
    vatId: p.vatId,
    email: p.email,
  };
}

function eventView(row: Selectable<BillingEventsTable>): BillingEventView {
  return { at: iso(Number(row.at)), subject: row.subject, from: row.from_state, to: row.to_state, reason: row.reason };
}
