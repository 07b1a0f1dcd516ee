// The evidence PDF of one flight (docs/evidence.md): the proof image, the record's times and each
// source's, the verdict and its rationale, the EU261 / UK261 assessment with its legal basis and the
// claim deadlines, the circumstances with their reports, and how and when the document was produced.
// The record it renders (record.ts) and that record's signature are attached to it as files.
//
// Reproducible: the same record, production time, key and version give the same bytes. pdfkit stamps
// a document with `new Date()` unless given `info.CreationDate` and derives the trailer's /ID from the
// info dictionary, so the production time fixes both; font subsets are named from the document's
// own font ids and built in the order glyphs are first used, which the same text repeats; the
// attachments carry the production time as their dates. PDF 1.3 (pdfkit's default) writes no XMP
// metadata. Inter, the typeface the proof image uses, is embedded from @expo-google-fonts/inter (a
// dependency), so every airport name prints as written, on any machine.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import type { ReferenceAirports } from '../airports/index.js';
import type { FlightStatusData, Proof } from '../flights/index.js';
import type { PdfSigner } from './certificate.js';
import { opaquePng } from './image.js';
import { BOLD, footers, iso, MARGIN, MUTED, REGULAR, Writer } from './layout.js';
import {
  circumstancesSection,
  compensationSection,
  productionSection,
  sourcesSection,
  timesSection,
  verdictSection,
} from './sections.js';
import type { EvidenceRecord } from './record.js';

/** What a document shows beside the record. */
export interface EvidencePage {
  record: EvidenceRecord;
  /** When the document is produced (the service clock). */
  producedAt: number;
  /** The proof image, or why it could not be rendered. */
  proof: Proof | { unavailable: string };
  /** The Ed25519 signature of the record's bytes (attached as record.json.sig). */
  recordSignature: Buffer;
  keyFingerprint: string;
  /** Who signs the PDF signature that follows the sealing lines. */
  pdfSigner: Pick<PdfSigner, 'name' | 'fingerprint' | 'selfSigned'>;
  version: string;
  /** Where the public key is served (FLIGHTSTATUS_PUBLIC_URL), when known. */
  publicUrl: string | null;
  airports: ReferenceAirports;
}

/** pdfkit and the fonts, loaded with the first PDF: pdfkit decodes its font tables when loaded (~0.1 s at every start otherwise). */
const loadPdfkit = () => import('pdfkit').then((module) => module.default);
let pdfkit: ReturnType<typeof loadPdfkit> | null = null;
/**
 * Inter as pdfkit's font engine (fontkit) reads it: the files once, then the parsed fonts that the
 * first document made, which pdfkit takes in their place (a parsed font is what it builds from a
 * file). Parsing the tables again cost every document about 100 ms; each document still makes its
 * own subset, so sharing them changes no byte.
 */
type FontSource = Buffer | object;
let fonts: { regular: FontSource; bold: FontSource } | null = null;

function interFonts(): { regular: FontSource; bold: FontSource } {
  if (fonts) return fonts;
  const require = createRequire(import.meta.url);
  const read = (file: string) => readFileSync(require.resolve(`@expo-google-fonts/inter/${file}`));
  return { regular: read('400Regular/Inter_400Regular.ttf'), bold: read('700Bold/Inter_700Bold.ttf') };
}

/**
 * Opens both fonts in the same order in every document, which numbers them (/F2, /F3) the same
 * whatever the document draws first, and keeps the parsed fonts of the first.
 */
function openFonts(doc: PDFKit.PDFDocument): void {
  const parsed = (name: string) => (doc.font(name) as unknown as { _font: { font: object } })._font.font;
  const opened = { regular: parsed(REGULAR), bold: parsed(BOLD) };
  fonts ??= opened;
}

export const RECORD_ATTACHMENT = 'record.json';
export const SIGNATURE_ATTACHMENT = 'record.json.sig';

/** The PDF, up to and including its `%%EOF` line (sign.ts adds the lines that seal it). */
export async function evidencePdf(page: EvidencePage): Promise<Buffer> {
  const PDFDocument = await (pdfkit ??= loadPdfkit());
  const { regular, bold } = interFonts();
  const data = page.record.data;
  const produced = new Date(page.producedAt);
  const image = 'unavailable' in page.proof ? null : await opaquePng(Buffer.from(page.proof.data, 'base64'));
  return new Promise<Buffer>((resolve, reject) => {
    const doc = new PDFDocument({
      size: 'A4',
      margin: MARGIN,
      compress: true,
      bufferPages: true,
      lang: 'en',
      displayTitle: true,
      info: {
        Title: `Flight evidence: ${data.flightNumber} on ${data.flightDate}`,
        Author: 'Flight Status Service',
        Subject: `The record of flight ${data.flightNumber} on ${data.flightDate}, its verdict and EU261 / UK261 assessment, signed (record SHA-256 ${page.record.sha256})`,
        Creator: `Flight Status Service ${page.version}`,
        Producer: 'PDFKit',
        CreationDate: produced,
      },
    });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    try {
      doc.registerFont(REGULAR, regular as Buffer);
      doc.registerFont(BOLD, bold as Buffer);
      openFonts(doc);
      draw(new Writer(doc), page, image);
      footers(
        doc,
        (n, of) =>
          `Flight evidence ${data.flightNumber} ${data.flightDate} · record SHA-256 ${page.record.sha256} · page ${n} of ${of}`,
      );
      attach(doc, page, produced);
      doc.end();
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

/**
 * The record and its signature as attached files, uncompressed: their bytes appear in the PDF as they
 * are, so the lines that seal the document can say where (sign.ts) and `tail -c | head -c` cut them
 * out. pdfkit compresses every stream of a document made with `compress`, read when a stream is made.
 */
function attach(doc: PDFKit.PDFDocument, page: EvidencePage, produced: Date): void {
  const files = doc as unknown as { compress: boolean; file(src: Buffer, o: object): unknown };
  const dates = { creationDate: produced, modifiedDate: produced };
  files.compress = false;
  try {
    files.file(page.record.bytes, {
      name: RECORD_ATTACHMENT,
      type: 'application/json',
      description: `The record this document renders: canonical JSON, SHA-256 ${page.record.sha256}`,
      ...dates,
    });
    files.file(page.recordSignature, {
      name: SIGNATURE_ATTACHMENT,
      type: 'application/octet-stream',
      description: 'Ed25519 signature of record.json by the evidence key (64 bytes)',
      ...dates,
    });
  } finally {
    files.compress = true;
  }
}

const words = (text: string) => text.replace(/_/g, ' ');

function airportLine(airports: ReferenceAirports, iata: string | null): string {
  if (!iata) return 'unknown airport';
  const airport = airports.find(iata);
  return airport ? `${iata} · ${airport.name}, ${airport.city} (${airport.countryCode})` : iata;
}

function headline(data: FlightStatusData): string {
  const r = data.selected!;
  const d = data.flightDelay;
  if (r.isCancelled) return 'Cancelled: the flight never operated';
  if (r.isDiverted) return 'Diverted: it never arrived at its destination';
  if (r.delayMinutes !== null)
    return r.delayMinutes > 0
      ? `Arrived ${d?.delayFormatted ?? `${r.delayMinutes}m`} late`
      : `Arrived on time (${d?.delayFormatted ?? `${r.delayMinutes}m`})`;
  return 'Arrival time not known';
}

function draw(w: Writer, page: EvidencePage, image: Buffer | null): void {
  const data = page.record.data;
  const r = data.selected!;
  const designators = [r.flightIata, r.flightIcao].filter((d): d is string => d !== null && d !== data.flightNumber);
  w.text('FLIGHT EVIDENCE', { font: BOLD, size: 8, colour: MUTED, after: 2 });
  w.text(
    `${data.flightNumber}${designators.length ? ` (${designators.join(' / ')})` : ''} on ${data.flightDate}${data.dateBasis === 'local' ? ' (local date)' : ''}`,
    { font: BOLD, size: 20, after: 4 },
  );
  w.text(`${airportLine(page.airports, r.originIata)}  →  ${airportLine(page.airports, r.destinationIata)}`, {
    size: 10,
    after: 6,
  });
  w.text(headline(data), { font: BOLD, size: 14, after: 6 });
  const aircraft = r.aircraft
    ? [r.aircraft.registration, r.aircraft.label ?? r.aircraft.icao ?? r.aircraft.iata].filter(Boolean).join(', ')
    : '';
  w.facts([
    [
      'Status',
      `${words(r.status)}${data.flightDelay ? ` (${words(data.flightDelay.statusKind)}), confidence ${data.flightDelay.disruption.confidence}` : ''}`,
    ],
    ['Settled', r.complete ? 'yes: every time the verdict needs is known' : 'no: the record is not complete yet'],
    ['Airline', r.airline ? [r.airline.name, r.airline.iata, r.airline.icao].filter(Boolean).join(' · ') : '—'],
    ...(aircraft ? [['Aircraft', aircraft] as const] : []),
    ['Record', `SHA-256 ${page.record.sha256}`],
    ['Produced', `${iso(page.producedAt)} by Flight Status Service ${page.version}`],
  ]);

  if ('unavailable' in page.proof || !image) {
    w.text(
      `The proof image could not be rendered on this server: ${'unavailable' in page.proof ? page.proof.unavailable : ''}`,
      { colour: MUTED },
    );
  } else {
    const proof = page.proof;
    const height = (w.width * proof.height) / proof.width;
    w.need(height + 20);
    w.doc.image(image, w.left, w.y, { width: w.width });
    w.doc.rect(w.left, w.y, w.width, height).lineWidth(0.5).strokeColor('#cbd5e1').stroke();
    w.y += height + 4;
    w.text(
      `The proof image of the record (PNG ${proof.width} × ${proof.height}, SHA-256 ${proof.sha256}), rendered when this document was produced.`,
      { size: 7.5, colour: MUTED },
    );
  }

  timesSection(w, data);
  verdictSection(w, data);
  compensationSection(w, data);
  circumstancesSection(w, data);
  sourcesSection(w, data);
  productionSection(w, page);
}
