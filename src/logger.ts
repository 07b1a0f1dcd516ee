// Structured JSON logs (pino). Credentials never reach a log line: request headers are not logged,
// a key sent in the query string is cut out of the logged URL (the HTTP server's request serializer,
// src/http/server.ts), and the paths where a secret could appear are redacted should any code log them.
import pino, { type Logger } from 'pino';
import type { LogLevel } from './config.js';

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'flightstatus' },
      timestamp: pino.stdTimeFunctions.isoTime,
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

export type { Logger };
