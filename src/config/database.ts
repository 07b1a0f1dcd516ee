// DATABASE_URL: which database the service keeps its state in; FLIGHTSTATUS_DB_POOL_SIZE: how many
// connections a process keeps to PostgreSQL (docs/deploy.md, "PostgreSQL connections").
import { resolve } from 'node:path';
import { Type } from 'typebox';
import { capability, custom, integer, invalid } from './setting.js';

export type DatabaseTarget =
  | { kind: 'sqlite'; path: string; url: string }
  /** `poolSize`: the process's pool (FLIGHTSTATUS_DB_POOL_SIZE); absent, DEFAULT_POOL_SIZE. */
  | { kind: 'postgres'; url: string; poolSize?: number };

export const DEFAULT_DATABASE_URL = 'sqlite:./data/flightstatus.db';
/** PostgreSQL connections per process when FLIGHTSTATUS_DB_POOL_SIZE is not set. */
export const DEFAULT_POOL_SIZE = 10;

export const database = capability({
  title: 'Database',
  settings: {
    DATABASE_URL: custom({
      default: DEFAULT_DATABASE_URL,
      schema: Type.String({ pattern: '^(sqlite:|postgres(ql)?://)' }),
      parse: (text) => {
        const target = parseDatabaseUrl(text);
        return typeof target === 'string' ? invalid(target) : target;
      },
      doc: '`sqlite:PATH` (relative to the working directory) or `postgres://user:password@host:5432/db`',
      comment:
        'sqlite:PATH (relative to the working directory) for the embedded database, or ' +
        'postgres://user:password@host:5432/database to share one PostgreSQL between processes and hosts.',
    }),
    FLIGHTSTATUS_DB_POOL_SIZE: integer({
      default: String(DEFAULT_POOL_SIZE),
      min: 2,
      max: 100,
      unit: 'an integer',
      doc:
        'PostgreSQL connections each process keeps open at most (its pool; readiness has one more of its own); batches use at most half of them. ' +
        "Every process × (this + 1) must fit the server's `max_connections` ([docs/deploy.md](docs/deploy.md#postgresql-connections)). SQLite: ignored",
      comment:
        'PostgreSQL connections per process (2 to 100), plus one of its own for /api/ready. Batches use at most ' +
        'half of the pool, so the API and the jobs always find a connection. Every process of a deployment ' +
        "opens up to this + 1: keep their sum under the server's max_connections (docs/deploy.md). Ignored with SQLite.",
    }),
  },
  check({ values, warning }) {
    const target = values.DATABASE_URL;
    const size = values.FLIGHTSTATUS_DB_POOL_SIZE;
    if (target?.kind === 'sqlite' && size !== undefined && size !== DEFAULT_POOL_SIZE) {
      warning(
        `FLIGHTSTATUS_DB_POOL_SIZE=${size} has no effect with SQLite (one connection per process); it sizes the PostgreSQL pool`,
      );
    }
  },
  build: (v) => ({
    database:
      v.DATABASE_URL.kind === 'postgres'
        ? { ...v.DATABASE_URL, poolSize: v.FLIGHTSTATUS_DB_POOL_SIZE }
        : v.DATABASE_URL,
  }),
});

/** `sqlite:PATH` (relative to the working directory), `sqlite::memory:`, or `postgres://…`. */
export function parseDatabaseUrl(url: string): DatabaseTarget | string {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') return 'DATABASE_URL "sqlite:" needs a file path, e.g. sqlite:./data/flightstatus.db';
    return { kind: 'sqlite', path: path === ':memory:' ? path : resolve(path), url };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    try {
      const parsed = new URL(url);
      if (parsed.hostname === '' && !parsed.searchParams.has('host')) {
        return 'DATABASE_URL must name a PostgreSQL host, e.g. postgres://user@127.0.0.1:5432/flightstatus';
      }
    } catch {
      return 'DATABASE_URL is not a valid postgres:// URL';
    }
    return { kind: 'postgres', url };
  }
  return `DATABASE_URL must start with sqlite: or postgres:// (got "${redactUrl(url)}")`;
}

/** A URL fit for logs: the password, if any, replaced. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}
