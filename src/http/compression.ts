// Answers over 1 KB are compressed for clients that accept it (br, gzip or deflate), with
// @fastify/compress. Measured in docs/performance.md ("Compression").
import zlib from 'node:zlib';
import compress from '@fastify/compress';
import type { HttpServer } from './server.js';

/** Smaller answers cost more to compress than they save on the wire. */
export const COMPRESS_THRESHOLD = 1024;

/**
 * Brotli at quality 1. Every answer is compressed as it leaves (a replayed lookup carries its own
 * `meta` times, so no two bodies are the same), and on a busy core that work comes out of the metered
 * path's throughput: for a 2.7 KB lookup answer quality 1 took about a third of the time of the
 * plugin's default 4 (~60 µs against ~200 µs here) for 836 bytes instead of 718. The API
 * description, which never changes, is compressed once at quality 9 instead (src/system/routes.ts).
 */
const BROTLI = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } };

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
  });
}
