// Answers over 1 KB are compressed for clients that accept it (br, gzip or deflate), with
// @fastify/compress. Measured in docs/performance.md ("Compression").
import zlib from 'node:zlib';
import compress from '@fastify/compress';
import { LRUCache } from 'lru-cache';
import type { HttpServer } from './server.js';

/** Smaller answers cost more to compress than they save on the wire. */
export const COMPRESS_THRESHOLD = 1024;

/**
 * Brotli at quality 4 (the plugin's default; 11 is far too slow per response). Small answers are
 * compressed inline (under the plugin's sync threshold), larger ones on a zlib stream.
 */
const BROTLI = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } };

/**
 * The same bytes compress to the same bytes: a replayed lookup, the airport list and the account
 * answers repeat, and compressing them again cost the metered replay a large share of its
 * throughput (docs/performance.md). The inline compressors remember their recent outputs by input,
 * within a byte budget; an answer seen once costs one compression, as without the cache.
 */
const MEMO_BYTES = 16 * 2 ** 20;

function memoized(compressSync: (input: Buffer, options?: object) => Buffer): (input: Buffer, options?: object) => Buffer {
  const cache = new LRUCache<string, Buffer>({ maxSize: MEMO_BYTES, sizeCalculation: (value, key) => value.length + key.length });
  return (input, options) => {
    const key = input.toString('latin1');
    let output = cache.get(key);
    if (output === undefined) {
      output = compressSync(input, options);
      cache.set(key, output);
    }
    return output;
  };
}

/**
 * Registered after the hooks that rewrite a payload (the guard's usage check, idempotent replays),
 * before any route: the plugin attaches itself to each route as it is added. Request bodies are not
 * decompressed: they stay plain JSON within the body limit.
 */
export async function registerCompression(app: HttpServer): Promise<void> {
  app.addHook('onRoute', (route) => {
    (route as { decompress?: false }).decompress ??= false;
  });
  await app.register(compress, {
    global: true,
    threshold: COMPRESS_THRESHOLD,
    encodings: ['br', 'gzip', 'deflate'],
    brotliOptions: BROTLI,
    zlib: {
      createBrotliCompress: zlib.createBrotliCompress,
      createGzip: zlib.createGzip,
      createDeflate: zlib.createDeflate,
      brotliCompressSync: memoized(zlib.brotliCompressSync),
      gzipSync: memoized(zlib.gzipSync),
      deflateSync: memoized(zlib.deflateSync),
    },
  });
}
