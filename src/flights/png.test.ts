import { crc32, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodePng } from './png.js';

/** The chunks of a PNG, each checked against its CRC. */
function chunks(png: Buffer): { type: string; data: Buffer }[] {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const out: { type: string; data: Buffer }[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    expect(png.readUInt32BE(at + 8 + length), `CRC of ${type}`).toBe(crc32(png.subarray(at + 4, at + 8 + length)));
    out.push({ type, data });
    at += 12 + length;
  }
  return out;
}

describe('encodePng', () => {
  it('writes a valid RGBA PNG whose pixels decode to the input', async () => {
    const width = 7;
    const height = 5;
    const rgba = new Uint8Array(width * height * 4).map((_, i) => (i * 37) % 256);
    const parts = chunks(await encodePng(rgba, width, height));
    expect(parts.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    const header = parts[0]!.data;
    expect([header.readUInt32BE(0), header.readUInt32BE(4), header[8], header[9], header[12]]).toEqual([
      width,
      height,
      8,
      6,
      0,
    ]);
    const rows = inflateSync(parts[1]!.data);
    expect(rows.length).toBe(height * (width * 4 + 1));
    for (let y = 0; y < height; y++) {
      expect(rows[y * (width * 4 + 1)], `filter of row ${y}`).toBe(0);
      expect(rows.subarray(y * (width * 4 + 1) + 1, (y + 1) * (width * 4 + 1))).toEqual(
        Buffer.from(rgba.subarray(y * width * 4, (y + 1) * width * 4)),
      );
    }
  });

  it('refuses a buffer of the wrong size', async () => {
    await expect(encodePng(new Uint8Array(10), 2, 2)).rejects.toThrow(/expected 16 bytes/);
  });
});
