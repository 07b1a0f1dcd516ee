// An invoice as an A4 PDF, drawn with pdfkit in the standard Helvetica fonts (their metrics ship with
// pdfkit, so there is no font file to find or embed). The words and figures come from
// invoiceContent() / creditNoteContent() (render-html.ts), so the PDF and the HTML page say the same
// things.
//
// The same invoice always renders to the same bytes, which tests and caches rely on: pdfkit stamps
// a document with `new Date()` unless given `info.CreationDate`, and derives the trailer's /ID from
// the info dictionary (an MD5 of it; random bytes are drawn only for encrypted documents, which
// these are not), so a creation date taken from the invoice itself fixes both. PDF 1.3 (pdfkit's
// default) also leaves out the XMP metadata stream, into which pdfkit copies Title and Author
// without XML escaping.
//
// The standard fonts only know the Windows-1252 characters; pdfkit would write anything else as
// malformed glyph codes, so such characters are shown as "?" (see pdfText).
import { creditNoteContent, invoiceContent, type InvoiceContent } from './render-html.js';
import type { CreditNoteView } from './credit-notes.js';
import type { InvoiceView } from './invoice.js';

const REGULAR = 'Helvetica';
const BOLD = 'Helvetica-Bold';
/** A4 with 50pt (about 18 mm) margins: 495pt of usable width. */
const MARGIN = 50;
const BODY_SIZE = 9;
/** Space between table columns, and between table rows. */
const GAP = 8;
const ROW_GAP = 4;

interface Column {
  key: 'description' | 'plan' | 'quantity' | 'unitPrice' | 'amount';
  width: number;
  align: 'left' | 'right';
}

/** Numeric columns are sized for "10,000,000" and a seven-digit amount; the description takes the rest and wraps. */
function tableColumns(contentWidth: number): Column[] {
  const fixed: Column[] = [
    { key: 'plan', width: 70, align: 'left' },
    { key: 'quantity', width: 62, align: 'right' },
    { key: 'unitPrice', width: 62, align: 'right' },
    { key: 'amount', width: 75, align: 'right' },
  ];
  const used = fixed.reduce((sum, c) => sum + c.width + GAP, 0);
  return [{ key: 'description', width: contentWidth - used, align: 'left' }, ...fixed];
}

/** pdfkit, loaded with the first PDF: loading it decodes its font tables (~0.1 s at every start otherwise). */
const loadPdfkit = () => import('pdfkit').then((module) => module.default);
let pdfkit: ReturnType<typeof loadPdfkit> | null = null;

export function invoicePdf(invoice: InvoiceView, options?: { compress?: boolean }): Promise<Buffer> {
  return documentPdf(invoiceContent(invoice), creationDate(invoice.finalizedAt ?? invoice.createdAt), options);
}

export function creditNotePdf(
  note: CreditNoteView,
  invoice: InvoiceView,
  options?: { compress?: boolean },
): Promise<Buffer> {
  return documentPdf(creditNoteContent(note, invoice), creationDate(note.issuedAt), options);
}

async function documentPdf(content: InvoiceContent, created: Date, options?: { compress?: boolean }): Promise<Buffer> {
  const PDFDocument = await (pdfkit ??= loadPdfkit());
  return new Promise<Buffer>((resolve, reject) => {
    const doc = new PDFDocument({
      size: 'A4',
      margin: MARGIN,
      compress: options?.compress ?? true,
      lang: 'en',
      displayTitle: true,
      info: { Title: content.heading, Author: content.seller, CreationDate: created },
    });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    try {
      draw(doc, content);
      doc.end();
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

/** When the document was issued (a draft: created); the epoch for a date that does not parse. */
function creationDate(when: string): Date {
  const at = Date.parse(when);
  return new Date(Number.isNaN(at) ? 0 : at);
}

function draw(doc: PDFKit.PDFDocument, c: InvoiceContent): void {
  const left = MARGIN;
  const width = doc.page.width - 2 * MARGIN;
  let y = MARGIN;

  doc.font(BOLD).fontSize(11).fillColor('black');
  doc.text(pdfText(c.seller), left, y, { width });
  y = doc.y + 14;

  const stampWidth = 180;
  doc.font(BOLD).fontSize(20);
  doc.text(pdfText(c.heading), left, y, { width: width - stampWidth - GAP });
  let below = doc.y;
  if (c.stamp !== null) {
    doc.fillColor(c.stamp === 'PAID' ? '#1a7f37' : '#b42318');
    doc.text(c.stamp, left + width - stampWidth, y, { width: stampWidth, align: 'right' });
    doc.fillColor('black');
    below = Math.max(below, doc.y);
  }
  y = below + 12;

  // The parties side by side.
  const partyWidth = (width - GAP * 2) / 2;
  let partiesBottom = y;
  c.parties.forEach((party, i) => {
    const x = left + i * (partyWidth + GAP * 2);
    doc
      .font(BOLD)
      .fontSize(8)
      .fillColor('#444444')
      .text(pdfText(party.title.toUpperCase()), x, y, { width: partyWidth });
    doc
      .font(REGULAR)
      .fontSize(BODY_SIZE)
      .fillColor('black')
      .text(party.lines.map(pdfText).join('\n'), x, doc.y + 2, { width: partyWidth });
    partiesBottom = Math.max(partiesBottom, doc.y);
  });
  y = partiesBottom + 14;

  const labelWidth = 90;
  for (const fact of c.facts) {
    doc.font(BOLD).fontSize(BODY_SIZE).text(pdfText(fact.label), left, y, { width: labelWidth });
    const labelBottom = doc.y;
    doc.font(REGULAR).text(pdfText(fact.value), left + labelWidth + GAP, y, { width: width - labelWidth - GAP });
    y = Math.max(labelBottom, doc.y) + 3;
  }
  y += 14;

  const columns = tableColumns(width);
  const header: Record<Column['key'], string> = {
    description: 'Description',
    plan: 'Plan',
    quantity: 'Quantity',
    unitPrice: `Unit price (${c.currency})`,
    amount: `Amount (${c.currency})`,
  };
  const bottom = doc.page.height - MARGIN;
  y = drawRow(doc, columns, header, left, y, BOLD, true);
  for (const line of c.lines) {
    doc.font(REGULAR).fontSize(BODY_SIZE);
    if (y + rowHeight(doc, columns, line) > bottom) {
      y = continuation(doc, c, left, width);
      y = drawRow(doc, columns, header, left, y, BOLD, true);
    }
    y = drawRow(doc, columns, line, left, y, REGULAR, false);
  }

  // The totals, the notes and the footer, kept together on one page.
  doc.font(REGULAR).fontSize(8);
  const tail = [...c.notes, c.footer].reduce((h, text) => h + doc.heightOfString(pdfText(text), { width }) + 4, 0);
  if (y + 20 * c.totals.length + 20 + tail > bottom) y = continuation(doc, c, left, width);
  doc
    .moveTo(left, y)
    .lineTo(left + width, y)
    .lineWidth(0.75)
    .strokeColor('black')
    .stroke();
  y += 6;
  const amount = columns[columns.length - 1]!;
  const labelSpan = width - amount.width - GAP;
  c.totals.forEach((total, i) => {
    const last = i === c.totals.length - 1;
    doc.font(last ? BOLD : REGULAR).fontSize(last ? 10 : BODY_SIZE);
    doc.text(pdfText(total.label), left, y, { width: labelSpan, align: 'right' });
    const labelBottom = doc.y;
    doc.text(pdfText(total.value), left + width - amount.width, y, { width: amount.width, align: 'right' });
    y = Math.max(labelBottom, doc.y) + 4;
  });
  y += 12;

  doc.font(REGULAR).fontSize(BODY_SIZE).fillColor('black');
  for (const note of c.notes) {
    doc.text(pdfText(note), left, y, { width });
    y = doc.y + 4;
  }
  y += 8;
  doc.font(REGULAR).fontSize(8).fillColor('#444444');
  doc.text(pdfText(c.footer), left, y, { width });
  doc.fillColor('black');
}

/** A new page that says whose it is; returns the y below that line. */
function continuation(doc: PDFKit.PDFDocument, c: InvoiceContent, left: number, width: number): number {
  doc.addPage();
  doc.font(REGULAR).fontSize(8).fillColor('#444444');
  doc.text(pdfText(`${c.heading} (continued)`), left, MARGIN, { width });
  doc.fillColor('black');
  return doc.y + 10;
}

function rowHeight(doc: PDFKit.PDFDocument, columns: Column[], cells: Record<Column['key'], string>): number {
  return Math.max(
    ...columns.map((col) => doc.heightOfString(pdfText(cells[col.key]), { width: col.width, align: col.align })),
  );
}

/** Draws one table row (each cell wraps within its column) and returns the y below it. */
function drawRow(
  doc: PDFKit.PDFDocument,
  columns: Column[],
  cells: Record<Column['key'], string>,
  left: number,
  top: number,
  font: string,
  rule: boolean,
): number {
  doc.font(font).fontSize(BODY_SIZE);
  let x = left;
  let bottom = top;
  for (const col of columns) {
    doc.text(pdfText(cells[col.key]), x, top, { width: col.width, align: col.align });
    bottom = Math.max(bottom, doc.y);
    x += col.width + GAP;
  }
  if (rule) {
    const y = bottom + 2;
    doc
      .moveTo(left, y)
      .lineTo(x - GAP, y)
      .lineWidth(0.5)
      .strokeColor('#888888')
      .stroke();
    return y + ROW_GAP + 2;
  }
  return bottom + ROW_GAP;
}

/** Unicode code points that Windows-1252 places in 0x80–0x9F (the rest of Latin-1 maps to itself). */
const CP1252_EXTRAS = new Set([
  0x20ac, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x017d, 0x2018,
  0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x017e, 0x0178,
]);

/**
 * Text the standard fonts can show: control characters become spaces (a line's text stays on its
 * line) and characters outside Windows-1252 become "?". pdfkit writes each character's code as hex
 * without padding, so one unmapped character would shift every glyph after it.
 */
export function pdfText(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) out += ' ';
    else if (cp <= 0xff || CP1252_EXTRAS.has(cp)) out += ch;
    else out += '?';
  }
  return out;
}
