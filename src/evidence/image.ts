// The proof image as the PDF embeds it. The proof is an RGBA PNG (flights/png.ts) whose every pixel is
// opaque; pdfkit embeds an RGB PNG's compressed data as it is, but splits an RGBA one into colour and
// alpha pixel by pixel in JavaScript and compresses both again, which cost a document more than its
// text. So an opaque RGBA PNG whose rows are all unfiltered (what png.ts writes) becomes the same
// picture as an RGB PNG first; anything else is left for pdfkit to handle as it is.
import { deflate, inflate } from 'node:zlib';
import { promisify } from 'node:util';
import { PNG_SIGNATURE, pngChunk } from '../flights/index.js';

const inflateAsync = promisify(inflate);
const deflateAsync = promisify(deflate);

export async function opaquePng(png: Buffer): Promise<Buffer> {
  if (!png.subarray(0, 8).equals(PNG_SIGNATURE)) return png;
  let header: Buffer | null = null;
  const data: Buffer[] = [];
  for (let at = 8; at + 8 <= png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') header = body;
    else if (type === 'IDAT') data.push(body);
    else if (type !== 'IEND') return png; // a palette, gamma or text chunk: not ours
    at += 12 + length;
  }
  // 8-bit RGBA (colour type 6), not interlaced.
  if (!header || header[8] !== 8 || header[9] !== 6 || header[12] !== 0) return png;
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const rows = await inflateAsync(Buffer.concat(data));
  const stride = width * 4 + 1;
  if (rows.length !== stride * height) return png;
  const rgb = Buffer.alloc(height * (width * 3 + 1));
  let out = 0;
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    if (rows[row] !== 0) return png; // a filtered row: its bytes are not pixels
    rgb[out++] = 0;
    for (let x = row + 1; x < row + stride; x += 4) {
      if (rows[x + 3] !== 255) return png;
      rgb[out++] = rows[x]!;
      rgb[out++] = rows[x + 1]!;
      rgb[out++] = rows[x + 2]!;
    }
  }
  const rgbHeader = Buffer.from(header);
  rgbHeader[9] = 2; // truecolour
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', rgbHeader),
    pngChunk('IDAT', await deflateAsync(rgb, { level: 3 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
