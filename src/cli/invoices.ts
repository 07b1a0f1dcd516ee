// `flightstatus invoices …`: invoices (docs/billing.md) listed, shown, settled by hand and written
// again for a month, through the billing service.
import { parseMonth } from '../billing/calendar.js';
import { integer, parse, required, UsageError } from './args.js';
import type { Command } from './commands.js';
import { databaseCommand, withDatabaseNote, type Action, type ActionContext } from './database.js';
import { print } from './output.js';

const help = {
  invoices: `Usage: flightstatus invoices <list|get|pdf|pay|void|uncollectible|credit|credit-pdf|run> ...

  invoices list [--account ID|SLUG] [--state STATE] [--kind overage|fee|upgrade] [--month YYYY-MM] [--limit N]
  invoices get INVOICE_ID
  invoices pdf INVOICE_ID [--out FILE]
  invoices pay INVOICE_ID [--reason TEXT]
  invoices void INVOICE_ID [--reason TEXT]
  invoices uncollectible INVOICE_ID [--reason TEXT]
  invoices credit INVOICE_ID --reason TEXT [--amount NET]
  invoices credit-pdf CREDIT_NOTE_ID [--out FILE]
  invoices run --month YYYY-MM

flightstatus invoices SUBCOMMAND --help shows each one.`,
  'invoices list':
    withDatabaseNote(`Usage: flightstatus invoices list [--account ID|SLUG] [--state draft|open|paid|uncollectible|void] [--kind overage|fee|upgrade] [--month YYYY-MM] [--limit N] [--url URL]

Lists invoices of every account (or one), newest first, at most --limit (default 100, at most 500).
--month keeps those whose period starts in that month.`),
  'invoices get': withDatabaseNote(`Usage: flightstatus invoices get INVOICE_ID [--url URL]

Shows an invoice with its lines and every change it went through (states, charge attempts).`),
  'invoices pdf': withDatabaseNote(`Usage: flightstatus invoices pdf INVOICE_ID [--out FILE] [--url URL]

Writes the invoice's PDF, as its customer downloads it, to FILE (default: its number, e.g.
FS-000042.pdf, in this folder; - writes it to stdout), and prints {file, bytes}.`),
  'invoices pay': withDatabaseNote(`Usage: flightstatus invoices pay INVOICE_ID [--reason TEXT] [--url URL]

Marks an open (or uncollectible) invoice paid, e.g. when a bank transfer arrived. A past-due account
with no other overdue invoice is active again at once.`),
  'invoices void': withDatabaseNote(`Usage: flightstatus invoices void INVOICE_ID [--reason TEXT] [--url URL]

Voids a draft or open invoice issued by mistake; it keeps its number, and an open one is cancelled by
a credit note for all of it (an issued invoice is never changed). Releases a past-due account.`),
  'invoices credit':
    withDatabaseNote(`Usage: flightstatus invoices credit INVOICE_ID --reason TEXT [--amount NET] [--url URL]

Issues a credit note (CN-000001, its own sequence without gaps) on an issued invoice, for a refund or
a correction. An open invoice is credited in full and becomes void (then issue a correct one); a paid
one in full or by --amount, the net to credit in the invoice's currency ("12.50"), with the tax at
the invoice's rate added. The money itself is refunded through the payment provider or by transfer.`),
  'invoices credit-pdf':
    withDatabaseNote(`Usage: flightstatus invoices credit-pdf CREDIT_NOTE_ID [--out FILE] [--url URL]

Writes the credit note's PDF to FILE (default: its number, e.g. CN-000001.pdf; - writes it to
stdout), and prints {file, bytes}.`),
  'invoices uncollectible':
    withDatabaseNote(`Usage: flightstatus invoices uncollectible INVOICE_ID [--reason TEXT] [--url URL]

Writes an open invoice off (no more charges). Releases a past-due account; it can still be paid later.`),
  'invoices run': withDatabaseNote(`Usage: flightstatus invoices run --month YYYY-MM [--url URL]

Invoices the overage of a calendar month (UTC) again: writes the invoices that are missing and opens
drafts; never a second invoice for an account and month. The month must have ended, plus the grace
period (FLIGHTSTATUS_BILLING_GRACE_MINUTES). The running service's job charges what is due.`),
};

/**
 * The billing service, imported when an invoices command runs. The CLI never charges: it writes and
 * opens invoices, and the running service's job charges what is due.
 */
async function billingOf(context: ActionContext) {
  const { BillingService, ManualGateway } = await import('../billing/index.js');
  const { createLogger } = await import('../logger.js');
  const { BuyerDetails } = await import('../billing/buyer.js');
  const { db, clock, accounts, metering, plans, config } = context;
  return new BillingService({
    metering,
    seller: config.seller,
    buyers: new BuyerDetails({ db, clock }),
    db,
    clock,
    accounts,
    plans,
    gateway: new ManualGateway(),
    logger: createLogger('silent'),
    options: { graceMs: config.billing.graceMs, retryDelaysMs: config.billing.retryDelaysMs },
  });
}

const INVOICE_STATES = ['draft', 'open', 'paid', 'uncollectible', 'void'] as const;

function invoicesCommand(verb: string | undefined, rest: string[]): Action {
  switch (verb) {
    case 'list': {
      const { values } = parse(
        rest,
        {
          account: { type: 'string' },
          state: { type: 'string' },
          kind: { type: 'string' },
          month: { type: 'string' },
          limit: { type: 'string' },
        },
        0,
      );
      const state = values.state as (typeof INVOICE_STATES)[number] | undefined;
      if (state !== undefined && !INVOICE_STATES.includes(state))
        throw new UsageError(`--state must be one of ${INVOICE_STATES.join(', ')}`);
      const kind = values.kind as 'overage' | 'fee' | 'upgrade' | undefined;
      if (kind !== undefined && kind !== 'overage' && kind !== 'fee' && kind !== 'upgrade')
        throw new UsageError('--kind must be overage, fee or upgrade');
      const period = values.month === undefined ? undefined : monthOf(values.month);
      const limit = values.limit === undefined ? 100 : integer(values.limit, '--limit');
      if (limit < 1 || limit > 500) throw new UsageError('--limit must be from 1 to 500');
      return async (context) => {
        let accountId: string | undefined;
        if (values.account !== undefined) {
          const account = await context.accounts.find(values.account);
          if (!account) return print({ kind: 'not_found', message: `No account with id or slug "${values.account}"` });
          accountId = account.id;
        }
        const list = await (await billingOf(context)).list({ accountId, state, kind, period, limit });
        return print(list.kind === 'ok' ? { kind: 'ok', value: { invoices: list.value } } : list);
      };
    }
    case 'get': {
      const { positionals } = parse(rest, {}, 1);
      return async (context) => {
        const billing = await billingOf(context);
        const invoice = await billing.invoice(positionals[0]!);
        return print(
          invoice.kind === 'ok'
            ? { kind: 'ok', value: { invoice: invoice.value, history: await billing.history(positionals[0]!) } }
            : invoice,
        );
      };
    }
    case 'pdf':
    case 'credit-pdf': {
      const { values, positionals } = parse(rest, { out: { type: 'string' } }, 1);
      return async (context) => {
        const billing = await billingOf(context);
        const { creditNotePdf, invoicePdf } = await import('../billing/index.js');
        let document: { pdf: Buffer; name: string };
        if (verb === 'pdf') {
          const invoice = await billing.invoice(positionals[0]!);
          if (invoice.kind !== 'ok') return print(invoice);
          document = { pdf: await invoicePdf(invoice.value), name: invoice.value.number ?? invoice.value.id };
        } else {
          const note = await billing.creditNote(positionals[0]!);
          if (note.kind !== 'ok') return print(note);
          const invoice = await billing.invoice(note.value.invoiceId);
          if (invoice.kind !== 'ok') return print(invoice);
          document = { pdf: await creditNotePdf(note.value, invoice.value), name: note.value.number };
        }
        if (values.out === '-') {
          process.stdout.write(document.pdf);
          return 0;
        }
        const file = values.out ?? `${document.name}.pdf`;
        const { writeFileSync } = await import('node:fs');
        writeFileSync(file, document.pdf);
        return print({ kind: 'ok', value: { file, bytes: document.pdf.length } });
      };
    }
    case 'credit': {
      const { values, positionals } = parse(rest, { reason: { type: 'string' }, amount: { type: 'string' } }, 1);
      const reason = required(values.reason, '--reason');
      return async (context) =>
        print(await (await billingOf(context)).credit(positionals[0]!, { reason, amount: values.amount }));
    }
    case 'pay':
    case 'void':
    case 'uncollectible': {
      const { values, positionals } = parse(rest, { reason: { type: 'string' } }, 1);
      return async (context) => {
        const billing = await billingOf(context);
        const id = positionals[0]!;
        return print(
          verb === 'pay' ? await billing.markPaid(id, values.reason) : await billing.close(id, verb, values.reason),
        );
      };
    }
    case 'run': {
      const { values } = parse(rest, { month: { type: 'string' } }, 0);
      const period = monthOf(required(values.month, '--month'));
      return async (context) => print(await (await billingOf(context)).rerunMonth(period, context.clock.now()));
    }
    default:
      throw new UsageError(
        verb === undefined
          ? 'invoices needs a command: list, get, pdf, pay, void, uncollectible, credit, credit-pdf or run'
          : `unknown invoices command "${verb}"`,
      );
  }
}

function monthOf(text: string): number {
  const month = parseMonth(text);
  if (month === null) throw new UsageError(`--month must be a month as YYYY-MM (got "${text.slice(0, 20)}")`);
  return month;
}

export const invoices: Command = { help, json: true, run: databaseCommand(invoicesCommand) };
