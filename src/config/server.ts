// The HTTP listener and the process: where it listens, who may operate it, what it logs, which
// role it plays, and how it reads clients' addresses behind a proxy.
import { isIP } from 'node:net';
import { Type } from 'typebox';
import { redactUrl } from './database.js';
import { ROLES } from './roles.js';
import { capability, custom, integer, invalid, oneOf, text } from './setting.js';

export { parseRole, ROLES, type Role } from './roles.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Admin tokens shorter than this draw a warning: the operator API can create keys. */
const MIN_ADMIN_TOKEN_LENGTH = 16;

export const server = capability({
  title: 'The HTTP listener and the process',
  settings: {
    PORT: integer({
      default: '8080',
      min: 0,
      max: 65535,
      unit: 'an integer',
      doc: 'HTTP port (`0` picks a free one)',
    }),
    HOST: text({ default: '127.0.0.1', doc: 'listen address (`0.0.0.0` for all interfaces)' }),
    FLIGHTSTATUS_ADMIN_TOKEN: text({
      default: '',
      doc: 'Bearer token of the operator API (use 16+ random characters); empty: the operator API answers 404',
      comment:
        'Bearer token of the operator API under /api/admin/v1 (use at least 16 random characters, e.g. ' +
        '`openssl rand -hex 32`; a shorter one works with a warning). Empty: the operator API is off (404).',
    }),
    LOG_LEVEL: oneOf(LOG_LEVELS, {
      default: 'info',
      listing: 'one of',
      lowerCase: true,
      doc: '`fatal` … `trace`, or `silent`; JSON lines on stdout',
      comment: 'fatal, error, warn, info, debug, trace or silent. Logs are JSON lines on stdout.',
    }),
    FLIGHTSTATUS_ROLE: oneOf(ROLES, {
      default: 'all',
      listing: 'one of',
      clip: 40,
      doc: '`api` (HTTP only), `worker` (the periodic jobs, and only probes, metrics and the clock over HTTP) or `all`; `serve --role` overrides it ([docs/deploy.md](docs/deploy.md))',
      comment:
        'What this process does (docs/deploy.md): all (answers HTTP and runs the periodic jobs: one process ' +
        'on its own), api (answers HTTP only) or worker (runs the board poll, webhook deliveries, invoicing and ' +
        "pruning, and answers only /api/health, /api/ready, /metrics and the operator's clock). Several " +
        'processes share one PostgreSQL; `flightstatus serve --role ROLE` overrides this.',
    }),
    FLIGHTSTATUS_BODY_LIMIT: integer({
      default: '65536',
      min: 1024,
      max: 10 * 1024 * 1024,
      unit: 'a byte count',
      doc: 'largest request body in bytes (413 above)',
      comment: 'Largest accepted request body, in bytes (1024 to 10485760); larger bodies get 413.',
    }),
    FLIGHTSTATUS_PUBLIC_URL: custom({
      default: '',
      schema: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
      parse: (value) => {
        const url = parsePublicUrl(value);
        return typeof url === 'object' && url !== null ? invalid(url.problem) : url;
      },
      doc: 'where clients reach the service (`https://api.example.com`): the OpenAPI `servers` entry, and `/docs` asks browsers to upgrade to https only when it is https; empty: `/`',
      comment:
        'Where clients reach the service, e.g. https://api.example.com (no trailing slash needed): the ' +
        '`servers` entry of /api/v1/openapi.json, and whether /docs asks browsers to upgrade to https. ' +
        'Empty: the document names the relative server `/` and /docs works over plain http.',
    }),
    FLIGHTSTATUS_TRUST_PROXY: custom({
      default: 'off',
      schema: Type.Union([Type.Literal(false), Type.Array(Type.String())]),
      parse: (value) => {
        const trust = parseTrustProxy(value);
        return typeof trust === 'object' && !Array.isArray(trust) ? invalid(trust.problem) : trust;
      },
      doc: 'behind a reverse proxy, its addresses or CIDR ranges (`127.0.0.1`, `10.0.0.0/8,::1`, `loopback`): X-Forwarded-For/-Proto/-Host are believed from those peers only; `off`: the client is the TCP peer ([docs/deploy.md](docs/deploy.md#behind-a-reverse-proxy))',
      comment:
        "Behind a reverse proxy: the proxies' addresses and CIDR ranges, comma-separated (e.g. " +
        '"127.0.0.1" or "10.0.0.0/8,::1"; "loopback" names 127.0.0.0/8 and ::1). X-Forwarded-For is then ' +
        'believed from them, so sign-up and sign-in limits count the real client. "off": the client is the ' +
        'TCP peer and X-Forwarded-For is ignored (a client could otherwise name any address).',
    }),
  },
  check({ text: given, warning }) {
    const token = given.FLIGHTSTATUS_ADMIN_TOKEN;
    if (token !== '' && token.length < MIN_ADMIN_TOKEN_LENGTH) {
      warning(
        `FLIGHTSTATUS_ADMIN_TOKEN is only ${token.length} characters; anyone who guesses it can create keys. ` +
          'Use at least 16 random characters: openssl rand -hex 32',
      );
    }
  },
  build: (v) => ({
    port: v.PORT,
    host: v.HOST,
    adminToken: v.FLIGHTSTATUS_ADMIN_TOKEN === '' ? null : v.FLIGHTSTATUS_ADMIN_TOKEN,
    logLevel: v.LOG_LEVEL,
    role: v.FLIGHTSTATUS_ROLE,
    bodyLimit: v.FLIGHTSTATUS_BODY_LIMIT,
    publicUrl: v.FLIGHTSTATUS_PUBLIC_URL,
    trustProxy: v.FLIGHTSTATUS_TRUST_PROXY,
  }),
});

/**
 * FLIGHTSTATUS_TRUST_PROXY: "off" → false, or a comma-separated list of the proxies' addresses and
 * CIDR ranges (and proxy-addr's names loopback, linklocal, uniquelocal): X-Forwarded-For is read
 * from the right, skipping only addresses in the list. Two things Fastify also takes are refused:
 * `true` (believe anyone: any client could name its own address) and a hop count (it cannot check
 * that the peer is a proxy at all, and Fastify 5 therefore believes nobody with one).
 */
export function parseTrustProxy(text: string): false | string[] | { problem: string } {
  const value = text.trim().toLowerCase();
  const problem = {
    problem:
      `FLIGHTSTATUS_TRUST_PROXY must be "off", a number of proxy hops from 1 to 10, or a comma-separated list of proxy addresses and CIDR ranges ` +
      `(e.g. "10.0.0.0/8,127.0.0.1"; "loopback", "linklocal" and "uniquelocal" name those ranges) (got "${text.slice(0, 60)}")`,
  };
  if (value === 'off' || value === '') return false;
  if (/^\d+$/.test(value)) {
    return {
      problem: `FLIGHTSTATUS_TRUST_PROXY takes the proxies' addresses, not a hop count: name the proxy (e.g. "127.0.0.1" or "10.0.0.0/8"), so that only it can set the client's address (got "${text.slice(0, 20)}")`,
    };
  }
  if (value === 'true' || value === '*') return problem;
  const entries = value.split(',').map((e) => e.trim());
  for (const entry of entries) {
    if (entry === 'loopback' || entry === 'linklocal' || entry === 'uniquelocal') continue;
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    if (family === 0 || extra !== undefined) return problem;
    if (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128))) return problem;
  }
  return entries;
}

/** An absolute http(s) URL with no query or fragment, kept without its trailing slash; '' is null. */
export function parsePublicUrl(text: string): string | null | { problem: string } {
  if (text === '') return null;
  const problem = `FLIGHTSTATUS_PUBLIC_URL must be an absolute http:// or https:// URL without query or fragment, e.g. https://api.example.com (got "${redactUrl(text.slice(0, 200))}")`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem };
  }
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== ''
  ) {
    return { problem };
  }
  return url.href.replace(/\/+$/, '');
}
