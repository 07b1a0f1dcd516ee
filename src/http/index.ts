// The HTTP layer: the Fastify server with its error envelope (server.ts, errors.ts), the
// authentication and admission guard (guard.ts), shared schemas and the OpenAPI shaping.
export { createHttpServer, named, sendError, type HttpServer } from './server.js';
export { baseUrl } from './base-url.js';
