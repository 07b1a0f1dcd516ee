// The text a PDF drawn by pdfkit shows, read back as a reader would: each content stream inflated
// (FlateDecode), each `[<hex> kern <hex> …] TJ` line decoded from Windows-1252, lines joined by
// spaces and runs of white space made one.
import { inflateSync } from 'node:zlib';

/** Windows-1252 bytes 0x80–0x9F (the rest are Latin-1). */
const CP1252_80_9F = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';
const cp1252 = (bytes: Buffer): string =>
  String.fromCharCode(...bytes).replace(/[\u0080-\u009f]/g, (c) => CP1252_80_9F[c.charCodeAt(0) - 0x80]!);

export function pdfText(pdf: Buffer): string {
  const source = pdf.toString('latin1');
  const streams: string[] = [];
  // Each stream is read by the /Length its dictionary gives (pdfkit writes it as a number), not up to
  // the next "endstream": compressed bytes may end in a carriage return, which a pattern for the
  // line break before "endstream" would take from the data (one PDF in about 60 read as empty).
  for (const match of source.matchAll(/\/Length (\d+)\b[^]*?>>\s*stream\r?\n/g)) {
    const start = match.index + match[0].length;
    const raw = Buffer.from(source.slice(start, start + Number(match[1])), 'latin1');
    try {
      streams.push(inflateSync(raw).toString('latin1'));
    } catch {
      streams.push(raw.toString('latin1'));
    }
  }
  const lines = streams.flatMap((s) =>
    [...s.matchAll(/\[([^\]]*)\] TJ/g)].map((m) =>
      cp1252(Buffer.from([...m[1]!.matchAll(/<([0-9a-f]*)>/g)].map((h) => h[1]).join(''), 'hex')),
    ),
  );
  return lines.join(' ').replace(/\s+/g, ' ');
}
