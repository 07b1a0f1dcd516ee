// Structured JSON logs (pino). Credentials never reach a log line: request headers are not logged,
// a key sent in the query string is cut out of the logged URL, and the paths where a secret could
// appear are redacted should any code log them.
import pino, { type Logger } from 'pino';
import { redactKeyParameters } from './auth/credential.js';
import type { LogLevel } from './config.js';

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'flightstatus' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Fastify's request serializer, with key-carrying query parameters redacted from the URL.
      serializers: {
        req: (req: RequestLike) => ({
          method: req.method,
          url: typeof req.url === 'string' ? redactKeyParameters(req.url) : req.url,
          host: req.host,
          remoteAddress: req.ip,
          remotePort: req.socket?.remotePort,
        }),
      },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers["x-api-key"]',
          'req.headers["x-service-api-key"]',
          'headers.authorization',
          'headers["x-api-key"]',
          'headers["x-service-api-key"]',
          '*.key',
          '*.adminToken',
          '*.secret',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

interface RequestLike {
  method?: string;
  url?: unknown;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

export type { Logger };
