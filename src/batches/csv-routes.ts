// The text of a CSV upload: the body parser of the routes that take one (a door, so it answers in
// HTTP's terms). Spreadsheets save CSV in their machine's encoding: UTF-8 (with or without a
// byte-order mark) from most, Windows-1252 from Excel's "CSV (Comma delimited)" in Western locales,
// UTF-16 with a byte-order mark from some exports. A charset the request declares
// (`Content-Type: text/csv; charset=…`) is honoured; without one, a UTF-16 byte-order mark is, and
// bytes that are not valid UTF-8 are read as Windows-1252 (every byte is a character there), so
// "Müller" stays "Müller" instead of becoming "M�ller" in the results. iconv-lite decodes the
// others: Node 20's own TextDecoder reads "windows-1252" as ISO-8859-1 (0x80 is not "€" there).
import { TextDecoder } from 'node:util';
import iconv from 'iconv-lite';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../http/errors.js';
import { MAX_BATCH_BYTES } from './schemas.js';

/** Reads text/csv bodies (up to MAX_BATCH_BYTES) as text in their encoding; one that cannot be read is answered with why. */
export function readCsvBodies(scope: Pick<FastifyInstance, 'addContentTypeParser'>): void {
  scope.addContentTypeParser(
    ['text/csv', 'application/csv'],
    { parseAs: 'buffer', bodyLimit: MAX_BATCH_BYTES },
    (request, body, done) => {
      try {
        done(null, decodeCsv(body as Buffer, request.headers['content-type']));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
}

function decodeCsv(bytes: Buffer, contentType: string | undefined): string {
  const declared = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1];
  if (declared && !/^utf-?8$/i.test(declared)) {
    if (!iconv.encodingExists(declared)) {
      throw new ApiError(
        'unsupported_media_type',
        `The charset ${JSON.stringify(declared)} is not one this service reads: send UTF-8, or name the file's encoding (windows-1252, iso-8859-1, utf-16le, …).`,
      );
    }
    return iconv.decode(bytes, declared);
  }
  if (!declared && bytes[0] === 0xff && bytes[1] === 0xfe) return iconv.decode(bytes, 'utf-16le');
  if (!declared && bytes[0] === 0xfe && bytes[1] === 0xff) return iconv.decode(bytes, 'utf-16be');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    if (declared)
      throw new ApiError(
        'invalid_request',
        `The CSV is not valid ${declared}: send it in the encoding its Content-Type names, or without a charset to let the service tell UTF-8 from Windows-1252.`,
      );
    return iconv.decode(bytes, 'windows-1252');
  }
}
