// The few shapes an evidence PDF is made of, over pdfkit: headings, paragraphs, bullet lists, label
// and value pairs, and tables whose rows never split across pages (a header row repeats on the next).
// Everything flows down from the top margin; a block that does not fit starts a new page.

export const REGULAR = 'Inter';
export const BOLD = 'Inter-Bold';
/** A4 with 50pt (about 18 mm) margins: 495pt of usable width. */
export const MARGIN = 50;
const BODY = 9;
const GAP = 8;
export const INK = '#0f172a';
export const MUTED = '#475569';
const RULE = '#cbd5e1';

export const iso = (at: number) => new Date(at).toISOString();

/**
 * No OpenType features on any run of text. fontkit applies them in JavaScript to every word while
 * pdfkit measures and writes it, and Inter's contextual alternates and pair kerning were most of a
 * document's time (measured: 166 of ~250 ms of CPU per document; 74 without them), all of it holding
 * the event loop. What the text loses: pair kerning, ligatures, and the colon raised between digits.
 * The glyphs are Inter's own, and the proof image keeps its full typography.
 */
const FEATURES = {
  calt: false,
  kern: false,
  liga: false,
  ccmp: false,
  locl: false,
  mark: false,
  mkmk: false,
  clig: false,
  rlig: false,
  rclt: false,
  curs: false,
} as unknown as PDFKit.Mixins.OpenTypeFeatures[];

export interface Column {
  title: string;
  width: number;
  align?: 'left' | 'right';
}

/** A cursor over the document: where the next block goes. */
export class Writer {
  y = MARGIN;

  constructor(readonly doc: PDFKit.PDFDocument) {}

  get left(): number {
    return MARGIN;
  }

  get width(): number {
    return this.doc.page.width - 2 * MARGIN;
  }

  /** The lowest y a block may reach: the bottom margin, above the footer. */
  get bottom(): number {
    return this.doc.page.height - MARGIN;
  }

  /** Starts a new page when `height` does not fit below the cursor. */
  need(height: number): void {
    if (this.y + height <= this.bottom) return;
    this.doc.addPage();
    this.y = MARGIN;
  }

  height(text: string, o: { font?: string; size?: number; width?: number } = {}): number {
    this.doc.font(o.font ?? REGULAR).fontSize(o.size ?? BODY);
    return this.doc.heightOfString(text, { width: o.width ?? this.width, features: FEATURES });
  }

  /** Text at the cursor, across the full width (or `indent` in), moving the cursor below it. */
  text(text: string, o: { font?: string; size?: number; colour?: string; indent?: number; after?: number } = {}): void {
    const indent = o.indent ?? 0;
    const width = this.width - indent;
    const size = o.size ?? BODY;
    // A paragraph longer than a page is left to pdfkit to flow; anything shorter is kept whole.
    const height = this.height(text, { font: o.font, size, width });
    if (height < this.bottom - MARGIN) this.need(height);
    this.doc
      .font(o.font ?? REGULAR)
      .fontSize(size)
      .fillColor(o.colour ?? INK);
    this.doc.text(text, this.left + indent, this.y, { width, features: FEATURES });
    this.y = this.doc.y + (o.after ?? 3);
    this.doc.fillColor(INK);
  }

  heading(text: string, level: 1 | 2 = 1): void {
    const size = level === 1 ? 13 : 10.5;
    // A heading keeps a few lines of what follows with it (a table's header and first row).
    this.need(this.height(text, { font: BOLD, size }) + 80);
    this.y += level === 1 ? 10 : 4;
    this.text(text, { font: BOLD, size, after: 4 });
    if (level === 1) this.rule();
  }

  rule(): void {
    this.doc
      .moveTo(this.left, this.y)
      .lineTo(this.left + this.width, this.y)
      .lineWidth(0.5)
      .strokeColor(RULE)
      .stroke();
    this.y += 5;
  }

  bullets(lines: readonly string[]): void {
    for (const line of lines) {
      const height = this.height(line, { width: this.width - 12 });
      this.need(height);
      this.doc
        .font(REGULAR)
        .fontSize(BODY)
        .fillColor(INK)
        .text('•', this.left + 2, this.y, { features: FEATURES });
      this.text(line, { indent: 12, after: 2 });
    }
    this.y += 2;
  }

  /** Label and value pairs, the labels in a column of their own. */
  facts(pairs: readonly (readonly [string, string])[], labelWidth = 130): void {
    const valueWidth = this.width - labelWidth - GAP;
    for (const [label, value] of pairs) {
      const height = Math.max(
        this.height(label, { font: BOLD, width: labelWidth }),
        this.height(value, { width: valueWidth }),
      );
      this.need(height);
      const top = this.y;
      this.doc
        .font(BOLD)
        .fontSize(BODY)
        .fillColor(INK)
        .text(label, this.left, top, { width: labelWidth, features: FEATURES });
      this.doc.font(REGULAR).text(value, this.left + labelWidth + GAP, top, { width: valueWidth, features: FEATURES });
      this.y = top + height + 3;
    }
    this.y += 2;
  }

  /** A table: the widths are fractions of the usable width; a row that does not fit moves to the next page, under the header again. */
  table(columns: readonly Column[], rows: readonly (readonly string[])[], caption?: string): void {
    const total = columns.reduce((sum, c) => sum + c.width, 0);
    const widths = columns.map((c) => ((this.width - GAP * (columns.length - 1)) * c.width) / total);
    const rowHeight = (cells: readonly string[], font: string) =>
      Math.max(...cells.map((cell, i) => this.height(cell, { font, width: widths[i] })));
    const header = columns.map((c) => c.title);
    const drawHeader = () => {
      if (caption) this.text(caption, { font: BOLD, size: BODY, colour: MUTED, after: 2 });
      this.draw(columns, widths, header, BOLD);
      this.y += 1;
      this.rule();
    };
    this.need((caption ? 14 : 0) + rowHeight(header, BOLD) + 8 + (rows[0] ? rowHeight(rows[0], REGULAR) : 0));
    drawHeader();
    for (const row of rows) {
      const height = rowHeight(row, REGULAR);
      if (this.y + height > this.bottom) {
        this.doc.addPage();
        this.y = MARGIN;
        drawHeader();
      }
      this.draw(columns, widths, row, REGULAR);
      this.y += 3;
    }
    this.y += 4;
  }

  private draw(columns: readonly Column[], widths: number[], cells: readonly string[], font: string): void {
    let x = this.left;
    let bottom = this.y;
    this.doc.font(font).fontSize(BODY).fillColor(INK);
    cells.forEach((cell, i) => {
      this.doc.text(cell, x, this.y, { width: widths[i], align: columns[i]!.align ?? 'left', features: FEATURES });
      bottom = Math.max(bottom, this.doc.y);
      x += widths[i]! + GAP;
    });
    this.y = bottom;
  }
}

/** Writes `footer(page, pages)` at the foot of every page (the document buffers its pages). */
export function footers(doc: PDFKit.PDFDocument, footer: (page: number, pages: number) => string): void {
  const { start, count } = doc.bufferedPageRange();
  for (let i = start; i < start + count; i++) {
    doc.switchToPage(i);
    // Below the bottom margin: pdfkit would start a new page for text there unless the margin is lifted.
    const margin = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc
      .font(REGULAR)
      .fontSize(7)
      .fillColor(MUTED)
      .text(footer(i - start + 1, count), MARGIN, doc.page.height - MARGIN + 16, {
        width: doc.page.width - 2 * MARGIN,
        lineBreak: false,
        features: FEATURES,
      });
    doc.page.margins.bottom = margin;
  }
}
