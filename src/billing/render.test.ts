// The invoice renderings: the PDF is a complete, deterministic document that says what the invoice
// says, and the HTML page says the same with every value escaped. PDF text is read back from the
// uncompressed content streams, where pdfkit writes each line as `[<hex> kern <hex> …] TJ` in
// Windows-1252 codes; joining a TJ array's hex runs gives the line's text.
import { describe, expect, it, vi } from 'vitest';
import type { InvoiceView } from './invoice.js';
import { createHash } from 'node:crypto';
import { INVOICE_CSP, invoiceHtml } from './render-html.js';
import { creditNotePdf, invoicePdf, pdfText } from './render-pdf.js';

const seller = {
  name: 'Flight Status Ltd',
  address: ['Hauptstr. 1', '10115 Berlin'],
  country: 'DE',
  countryName: 'Germany',
  vatId: 'DE136695976',
  email: 'billing@flightstatus.example',
};
const buyer = {
  name: 'Acme Claims SARL',
  address: ['12 rue de la Paix', '75002 Paris'],
  country: 'FR',
  countryName: 'France',
  vatId: 'FR40303265045',
  email: null,
};

function example(overrides: Partial<InvoiceView> = {}): InvoiceView {
  return {
    id: 'inv_1',
    number: 'FS-000042',
    accountId: 'acct_1',
    accountSlug: 'acme',
    accountName: 'Acme Claims',
    kind: 'overage',
    state: 'open',
    currency: 'EUR',
    total: '12.34',
    totalMinor: 1234,
    net: '12.34',
    netMinor: 1234,
    tax: '0.00',
    taxMinor: 0,
    taxTreatment: 'reverse_charge',
    taxNote: 'Reverse charge: VAT to be accounted for by the recipient (Article 196 of Council Directive 2006/112/EC).',
    taxLines: [{ ratePercent: '0', country: null, taxable: '12.34', taxableMinor: 1234, tax: '0.00', taxMinor: 0 }],
    seller,
    buyer,
    dueDate: '2026-11-15',
    paymentInstructions: 'Pay by bank transfer to IBAN DE89 3704 0044 0532 0130 00, quoting FS-000042 by 2026-11-15.',
    periodStart: '2026-10-01T00:00:00.000Z',
    periodEnd: '2026-11-01T00:00:00.000Z',
    periodFirstDay: '2026-10-01',
    periodLastDay: '2026-10-31',
    createdAt: '2026-11-01T01:00:00.000Z',
    finalizedAt: '2026-11-01T01:00:00.000Z',
    paidAt: null,
    nextAttemptAt: null,
    attempts: 0,
    lines: [
      {
        description: 'Overage requests, October 2026, plan Starter',
        planId: 'starter',
        quantity: 6170,
        unitPrice: '0.002',
        amount: '12.34',
        amountMinor: 1234,
      },
    ],
    creditNotes: [],
    creditedMinor: 0,
    ...overrides,
  };
}

/** Windows-1252 bytes 0x80–0x9F (the rest are Latin-1); Node's TextDecoder reads that label as Latin-1. */
const CP1252_80_9F = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';
const cp1252 = (bytes: Buffer): string =>
  String.fromCharCode(...bytes).replace(/[\u0080-\u009f]/g, (c) => CP1252_80_9F[c.charCodeAt(0) - 0x80]!);

/** Each text line drawn in an uncompressed PDF, decoded. */
function pdfLines(pdf: Buffer): string[] {
  const source = pdf.toString('latin1');
  return [...source.matchAll(/\[([^\]]*)\] TJ/g)].map((m) =>
    cp1252(Buffer.from([...m[1]!.matchAll(/<([0-9a-f]*)>/g)].map((h) => h[1]).join(''), 'hex')),
  );
}

describe('invoicePdf', () => {
  it('is a complete PDF that shows the seller, buyer, number, dates, period, lines, tax, total, notes and footer', async () => {
    const pdf = await invoicePdf(example(), { compress: false });
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.toString('latin1').trimEnd().endsWith('%%EOF')).toBe(true);
    const lines = pdfLines(pdf);
    for (const text of [
      'Flight Status Ltd',
      'Invoice FS-000042',
      'acme',
      '2026-10-01 to 2026-10-31',
      '2026-11-01',
      'starter',
      '6,170',
      '0.002',
      '12.34',
    ]) {
      expect(lines, text).toContain(text);
    }
    const all = lines.join(' ').replace(/\s+/g, ' ');
    // Seller and buyer, each with address, country and VAT id.
    for (const text of [
      'Hauptstr. 1',
      '10115 Berlin',
      'Germany',
      'VAT id DE136695976',
      'billing@flightstatus.example',
      'Acme Claims SARL',
      '75002 Paris',
      'France',
      'VAT id FR40303265045',
    ]) {
      expect(all, text).toContain(text);
    }
    // Each on a line of its own, as the HTML breaks them (they once ran together into one line).
    const after = (title: string, n: number) => lines.slice(lines.indexOf(title) + 1, lines.indexOf(title) + 1 + n);
    expect(after('FROM', 6)).toEqual([
      'Flight Status Ltd',
      'Hauptstr. 1',
      '10115 Berlin',
      'Germany',
      'VAT id DE136695976',
      'billing@flightstatus.example',
    ]);
    expect(after('BILLED TO', 5)).toEqual([
      'Acme Claims SARL',
      '12 rue de la Paix',
      '75002 Paris',
      'France',
      'VAT id FR40303265045',
    ]);
    expect(lines).toEqual(expect.arrayContaining(['Due date', '2026-11-15', 'Invoice number', 'FS-000042']));
    expect(lines).toEqual(expect.arrayContaining(['Net (EUR)', 'VAT 0 % on 12.34', '0.00', 'Total due (EUR)']));
    expect(lines.filter((l) => l === '12.34')).toHaveLength(3); // the line's amount, the net and the total
    expect(all).toContain('Overage requests, October 2026, plan Starter');
    expect(all).toContain(
      'Reverse charge: VAT to be accounted for by the recipient (Article 196 of Council Directive 2006/112/EC).',
    );
    expect(all).toContain('Pay by bank transfer to IBAN DE89 3704 0044 0532 0130 00, quoting FS-000042 by 2026-11-15.');
    expect(all).toContain('Amounts in EUR. Periods are UTC days, first and last day included.');
    expect(lines).not.toContain('PAID');
  });

  it('sets the title, author and a creation date taken from the invoice', async () => {
    const text = (await invoicePdf(example(), { compress: false })).toString('latin1');
    expect(text).toContain('(Invoice FS-000042)');
    expect(text).toContain('(Flight Status Ltd)');
    expect(text).toContain('(D:20261101010000Z)');
  });

  it('renders the same invoice to the same bytes, compressed or not', async () => {
    const paid = example({ state: 'paid', paidAt: '2026-11-03T09:00:00.000Z' });
    expect((await invoicePdf(paid)).equals(await invoicePdf(paid))).toBe(true);
    // pdfkit would otherwise stamp the wall-clock time: render at two different ones.
    const renderAt = async (now: string): Promise<Buffer> => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date(now));
      try {
        return await invoicePdf(paid, { compress: false });
      } finally {
        vi.useRealTimers();
      }
    };
    const a = await renderAt('2030-01-01T00:00:00Z');
    expect(a.equals(await renderAt('2031-06-15T12:34:56Z'))).toBe(true);
    expect(pdfLines(a)).toEqual(expect.arrayContaining(['PAID', '2026-11-03']));
  });

  it('shows a draft as a draft, dated by its creation', async () => {
    const draft = example({ number: null, state: 'draft', finalizedAt: null, createdAt: '2026-11-01T02:30:00.000Z' });
    const pdf = await invoicePdf(draft, { compress: false });
    const lines = pdfLines(pdf);
    expect(lines).toEqual(expect.arrayContaining(['Draft invoice', 'DRAFT', 'Not issued (draft)']));
    expect(lines.join(' ')).not.toContain('FS-');
    expect(pdf.toString('latin1')).toContain('(D:20261101023000Z)');
  });

  it('wraps a 200-character description and fits 10,000,000 in its column', async () => {
    const description = 'Overage requests for the flight status lookups of October 2026 '.repeat(4).slice(0, 200);
    const unbroken = 'x'.repeat(200);
    const invoice = example({
      total: '40000.00',
      lines: [
        {
          description,
          planId: 'enterprise-plan-with-a-long-identifier-0',
          quantity: 10_000_000,
          unitPrice: '0.002',
          amount: '20000.00',
          amountMinor: 2_000_000,
        },
        {
          description: unbroken,
          planId: 'starter',
          quantity: 10_000_000,
          unitPrice: '0.002',
          amount: '20000.00',
          amountMinor: 2_000_000,
        },
      ],
    });
    const lines = pdfLines(await invoicePdf(invoice, { compress: false }));
    expect(lines.filter((l) => l === '10,000,000')).toHaveLength(2);
    const wrapped = lines.filter((l) => description.includes(l.trim()) && l.trim().length > 0);
    expect(wrapped.length).toBeGreaterThan(2);
    expect(wrapped.map((l) => l.trim()).join(' ')).toBe(description.trim());
    expect(lines.filter((l) => /^x+$/.test(l)).join('')).toBe(unbroken);
    expect(lines).toContain('40000.00');
  });

  it('never fails on awkward text or many lines, and starts new pages for long tables', async () => {
    const invoice = example({
      seller: { ...seller, name: 'Seller (with) \\ parens' },
      buyer: { ...buyer, name: 'Zoë & Søn <script>alert(1)</script> 株式会社 🚀\ttab\nnewline' },
      lines: Array.from({ length: 120 }, (_, i) => ({
        description: `Line ${i + 1} – “quoted” €`,
        planId: 'starter',
        quantity: i * 1000,
        unitPrice: '0.002',
        amount: '1.00',
        amountMinor: 100,
      })),
    });
    const pdf = await invoicePdf(invoice, { compress: false });
    expect(pdf.toString('latin1').trimEnd().endsWith('%%EOF')).toBe(true);
    expect(pdf.toString('latin1').match(/\/Type \/Page\n/g)!.length).toBeGreaterThan(2);
    const lines = pdfLines(pdf);
    expect(lines.join('\n')).toContain('Zoë & Søn <script>alert(1)</script> ???? ? tab'); // Latin-1 shown, the rest replaced
    expect(lines).toContain('Line 120 – “quoted” €');
    expect(lines).toContain('Invoice FS-000042 (continued)');
    const empty = await invoicePdf(example({ lines: [], total: '0.00', totalMinor: 0, finalizedAt: 'not a date' }));
    expect(empty.subarray(-6).toString('latin1')).toBe('%%EOF\n');
  });

  it('keeps Windows-1252 text and replaces what the standard fonts cannot show', () => {
    expect(pdfText('Café – €5 “ok”')).toBe('Café – €5 “ok”');
    expect(pdfText('a\u0000b\u0085c')).toBe('a b c');
    expect(pdfText('東京 🚀')).toBe('?? ?');
  });
});

describe('invoiceHtml', () => {
  it('is a styled, accessible page with the parties, number, dates, period, lines, tax and total', () => {
    const page = invoiceHtml(example());
    expect(page.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(page).toContain('<title>Invoice FS-000042 · Acme Claims SARL · Flight Status Ltd</title>');
    expect(page).toContain('<h1>Invoice FS-000042</h1>');
    expect(page).toContain(
      '<section><h2>From</h2><p>Flight Status Ltd</p><p>Hauptstr. 1</p><p>10115 Berlin</p><p>Germany</p><p>VAT id DE136695976</p>',
    );
    expect(page).toContain('<section><h2>Billed to</h2><p>Acme Claims SARL</p>');
    expect(page).toContain('<dt>Period (UTC)</dt><dd>2026-10-01 to 2026-10-31</dd>');
    expect(page).toContain('<dt>Issue date</dt><dd>2026-11-01</dd>');
    expect(page).toContain('<dt>Due date</dt><dd>2026-11-15</dd>');
    expect(page).toContain('<caption>Lines (amounts in EUR)</caption>');
    expect(page).toContain(
      '<tr><th scope="row">Overage requests, October 2026, plan Starter</th><td>starter</td><td class="n">6,170</td><td class="n">0.002</td><td class="n">12.34</td></tr>',
    );
    expect(page).toContain('<tr><th scope="row" colspan="4">VAT 0 % on 12.34</th><td class="n">0.00</td></tr>');
    expect(page).toContain('<tr><th scope="row" colspan="4">Total due (EUR)</th><td class="n">12.34</td></tr>');
    expect(page).toContain('Article 196 of Council Directive 2006/112/EC');
    // One stylesheet, allowed by its hash; no script, no outside resource.
    expect(page.match(/<style>/g)).toHaveLength(1);
    expect(page).not.toMatch(/<script|style=|<link|src=/i);
    const style = /<style>([\s\S]*)<\/style>/.exec(page)![1]!;
    expect(INVOICE_CSP).toBe(
      `default-src 'none'; style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`,
    );
  });

  it('escapes every value', () => {
    const page = invoiceHtml(
      example({
        accountSlug: 'a"b',
        seller: { ...seller, name: 'A & B' },
        buyer: { ...buyer, name: '<script>alert(1)</script>' },
      }),
    );
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).not.toContain('<script>');
    expect(page).toContain('a&quot;b');
    expect(page).toContain('<p class="seller">A &amp; B</p>');
  });

  it('shows a draft and a paid stamp', () => {
    const draft = invoiceHtml(example({ number: null, state: 'draft', finalizedAt: null, dueDate: null }));
    expect(draft).toContain('<h1>Draft invoice</h1>');
    expect(draft).toContain('<dd>Not issued (draft)</dd>');
    const paid = invoiceHtml(example({ state: 'paid', paidAt: '2026-11-03T09:00:00.000Z' }));
    expect(paid).toContain('<strong class="stamp paid">PAID</strong>');
    expect(paid).toContain('<dt>Paid on</dt><dd>2026-11-03</dd>');
    expect(paid).toContain('Total paid (EUR)');
    // A void invoice, fully credited, owes nothing and says so; an open one partly credited owes the rest.
    const credited = [
      { id: 'cn_1', number: 'CN-000001', issuedAt: '2026-11-05T10:00:00.000Z', total: '12.34', totalMinor: 1234 },
    ];
    const voided = invoiceHtml(example({ state: 'void', creditNotes: credited, creditedMinor: 1234 }));
    expect(voided).not.toContain('Total due');
    expect(voided).toContain('<tr><th scope="row" colspan="4">Total (EUR)</th><td class="n">12.34</td></tr>');
    expect(voided).toContain('<tr><th scope="row" colspan="4">Credited (EUR)</th><td class="n">−12.34</td></tr>');
    expect(voided).toContain('<tr><th scope="row" colspan="4">Amount due (EUR)</th><td class="n">0.00</td></tr>');
    const part = invoiceHtml(
      example({ creditNotes: [{ ...credited[0]!, total: '2.34', totalMinor: 234 }], creditedMinor: 234 }),
    );
    expect(part).toContain('<tr><th scope="row" colspan="4">Amount due (EUR)</th><td class="n">10.00</td></tr>');
    const uncredited = invoiceHtml(example({ state: 'void' }));
    expect(uncredited).toContain('<tr><th scope="row" colspan="4">Amount due (EUR)</th><td class="n">0.00</td></tr>');
    const big = invoiceHtml(example({ lines: [{ ...example().lines[0]!, quantity: 10_000_000 }] }));
    expect(big).toContain('<td class="n">10,000,000</td>');
  });
});

describe('creditNotePdf', () => {
  it('names the credit note, the invoice it credits, both parties and the tax credited', async () => {
    const invoice = example({
      taxTreatment: 'domestic',
      taxNote: 'VAT at the standard rate of DE, 19 %.',
      taxLines: [
        { ratePercent: '19', country: 'DE', taxable: '10.00', taxableMinor: 1000, tax: '1.90', taxMinor: 190 },
      ],
    });
    const note = {
      id: 'cn_1',
      number: 'CN-000003',
      invoiceId: 'inv_1',
      invoiceNumber: 'FS-000042',
      accountId: 'acct_1',
      currency: 'EUR',
      net: '5.00',
      netMinor: 500,
      tax: '0.95',
      taxMinor: 95,
      total: '5.95',
      totalMinor: 595,
      reason: 'Duplicate lookups refunded',
      issuedAt: '2026-11-20T10:00:00.000Z',
    };
    const lines = pdfLines(await creditNotePdf(note, invoice, { compress: false }));
    const all = lines.join(' ').replace(/\s+/g, ' ');
    expect(lines).toEqual(
      expect.arrayContaining([
        'Credit note CN-000003',
        'FS-000042 of 2026-11-01',
        '2026-11-20',
        'VAT 19 % (DE) on 5.00',
        '0.95',
        'Total credited (EUR)',
        '5.95',
      ]),
    );
    for (const text of [
      'Flight Status Ltd',
      'VAT id DE136695976',
      'Acme Claims SARL',
      'VAT id FR40303265045',
      'Duplicate lookups refunded',
    ])
      expect(all, text).toContain(text);
  });
});
