// The invoice renderings: the PDF is a complete, deterministic document that says what the invoice
// says, and the HTML page says the same with every value escaped. PDF text is read back from the
// uncompressed content streams, where pdfkit writes each line as `[<hex> kern <hex> …] TJ` in
// Windows-1252 codes; joining a TJ array's hex runs gives the line's text.
import { describe, expect, it, vi } from 'vitest';
import type { InvoiceView } from './invoice.js';
import { invoiceHtml } from './render-html.js';
import { invoicePdf, pdfText } from './render-pdf.js';

const seller = { name: 'Flight Status Ltd' };

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
    periodStart: '2026-10-01T00:00:00.000Z',
    periodEnd: '2026-11-01T00:00:00.000Z',
    createdAt: '2026-11-01T01:00:00.000Z',
    finalizedAt: '2026-11-01T01:00:00.000Z',
    paidAt: null,
    nextAttemptAt: null,
    attempts: 0,
    lines: [
      { description: 'Overage requests, October 2026, plan Starter', planId: 'starter', quantity: 6170, unitPrice: '0.002', amount: '12.34', amountMinor: 1234 },
    ],
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
  it('is a complete PDF that shows the seller, number, account, period, lines, total and footer', async () => {
    const pdf = await invoicePdf(example(), seller, { compress: false });
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.toString('latin1').trimEnd().endsWith('%%EOF')).toBe(true);
    const lines = pdfLines(pdf);
    for (const text of ['Flight Status Ltd', 'Invoice FS-000042', 'Acme Claims', 'acme', '2026-10-01 to 2026-10-31', '2026-11-01', 'EUR', 'starter', '6,170', '0.002', '12.34']) {
      expect(lines, text).toContain(text);
    }
    expect(lines.filter((l) => l === '12.34')).toHaveLength(2); // the line's amount and the total
    expect(lines.join(' ')).toContain('Overage requests, October 2026, plan Starter');
    expect(lines.join(' ')).toContain(
      'Amounts in EUR. Overage is billed in arrears per calendar month (UTC); the plan fee per 30-day window in advance.',
    );
    expect(lines).not.toContain('PAID');
  });

  it('sets the title, author and a creation date taken from the invoice', async () => {
    const text = (await invoicePdf(example(), seller, { compress: false })).toString('latin1');
    expect(text).toContain('(Invoice FS-000042)');
    expect(text).toContain('(Flight Status Ltd)');
    expect(text).toContain('(D:20261101010000Z)');
  });

  it('renders the same invoice to the same bytes, compressed or not', async () => {
    const paid = example({ state: 'paid', paidAt: '2026-11-03T09:00:00.000Z' });
    expect((await invoicePdf(paid, seller)).equals(await invoicePdf(paid, seller))).toBe(true);
    // pdfkit would otherwise stamp the wall-clock time: render at two different ones.
    const renderAt = async (now: string): Promise<Buffer> => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date(now));
      try {
        return await invoicePdf(paid, seller, { compress: false });
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
    const pdf = await invoicePdf(draft, seller, { compress: false });
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
        { description, planId: 'enterprise-plan-with-a-long-identifier-0', quantity: 10_000_000, unitPrice: '0.002', amount: '20000.00', amountMinor: 2_000_000 },
        { description: unbroken, planId: 'starter', quantity: 10_000_000, unitPrice: '0.002', amount: '20000.00', amountMinor: 2_000_000 },
      ],
    });
    const lines = pdfLines(await invoicePdf(invoice, seller, { compress: false }));
    expect(lines.filter((l) => l === '10,000,000')).toHaveLength(2);
    const wrapped = lines.filter((l) => description.includes(l.trim()) && l.trim().length > 0);
    expect(wrapped.length).toBeGreaterThan(2);
    expect(wrapped.map((l) => l.trim()).join(' ')).toBe(description.trim());
    expect(lines.filter((l) => /^x+$/.test(l)).join('')).toBe(unbroken);
    expect(lines).toContain('40000.00');
  });

  it('never fails on awkward text or many lines, and starts new pages for long tables', async () => {
    const invoice = example({
      accountName: 'Zoë & Søn <script>alert(1)</script> 株式会社 🚀\ttab\nnewline',
      lines: Array.from({ length: 120 }, (_, i) => ({
        description: `Line ${i + 1} – “quoted” €`,
        planId: 'starter',
        quantity: i * 1000,
        unitPrice: '0.002',
        amount: '1.00',
        amountMinor: 100,
      })),
    });
    const pdf = await invoicePdf(invoice, { name: 'Seller (with) \\ parens' }, { compress: false });
    expect(pdf.toString('latin1').trimEnd().endsWith('%%EOF')).toBe(true);
    expect(pdf.toString('latin1').match(/\/Type \/Page\n/g)!.length).toBeGreaterThan(2);
    const lines = pdfLines(pdf);
    expect(lines).toContain('Zoë & Søn <script>alert(1)</script> ???? ? tab newline'); // Latin-1 shown, the rest replaced
    expect(lines).toContain('Line 120 – “quoted” €');
    expect(lines).toContain('Invoice FS-000042 (continued)');
    const empty = await invoicePdf(example({ lines: [], total: '0.00', totalMinor: 0, finalizedAt: 'not a date' }), seller);
    expect(empty.subarray(-6).toString('latin1')).toBe('%%EOF\n');
  });

  it('keeps Windows-1252 text and replaces what the standard fonts cannot show', () => {
    expect(pdfText('Café – €5 “ok”')).toBe('Café – €5 “ok”');
    expect(pdfText('a\u0000b\u0085c')).toBe('a b c');
    expect(pdfText('東京 🚀')).toBe('?? ?');
  });
});

describe('invoiceHtml', () => {
  it('is a plain, accessible page with the number, period, lines and total', () => {
    const page = invoiceHtml(example(), seller);
    expect(page.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(page).toContain('<title>Invoice FS-000042 · Acme Claims · Flight Status Ltd</title>');
    expect(page).toContain('<h1>Invoice FS-000042</h1>');
    expect(page).toContain('<dt>Period (UTC)</dt><dd>2026-10-01 to 2026-10-31</dd>');
    expect(page).toContain('<dt>Issue date</dt><dd>2026-11-01</dd>');
    expect(page).toContain('<caption>Invoice lines (amounts in EUR)</caption>');
    expect(page).toContain('<th scope="col">Quantity</th>');
    expect(page).toContain(
      '<tr><th scope="row">Overage requests, October 2026, plan Starter</th><td>starter</td><td>6,170</td><td>0.002</td><td>12.34</td></tr>',
    );
    expect(page).toContain('<tr><th scope="row" colspan="4">Total (EUR)</th><td>12.34</td></tr>');
    expect(page).toContain('Amounts in EUR. Overage is billed in arrears per calendar month (UTC); the plan fee per 30-day window in advance.');
    expect(page).not.toMatch(/<style|<script|style=|<link/i);
  });

  it('escapes every value', () => {
    const page = invoiceHtml(example({ accountName: '<script>alert(1)</script>', accountSlug: 'a"b' }), { name: 'A & B' });
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).not.toContain('<script>');
    expect(page).toContain('a&quot;b');
    expect(page).toContain('<p>A &amp; B</p>');
  });

  it('shows a draft and a paid stamp', () => {
    const draft = invoiceHtml(example({ number: null, state: 'draft', finalizedAt: null }), seller);
    expect(draft).toContain('<h1>Draft invoice</h1>');
    expect(draft).toContain('<dd>Not issued (draft)</dd>');
    const paid = invoiceHtml(example({ state: 'paid', paidAt: '2026-11-03T09:00:00.000Z' }), seller);
    expect(paid).toContain('<p><strong>PAID</strong></p>');
    expect(paid).toContain('<dt>Paid on</dt><dd>2026-11-03</dd>');
    const big = invoiceHtml(example({ lines: [{ ...example().lines[0]!, quantity: 10_000_000 }] }), seller);
    expect(big).toContain('<td>10,000,000</td>');
  });
});
