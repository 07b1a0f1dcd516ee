// Where a request carries its API key (spec 5): Authorization: Bearer (preferred), X-Api-Key,
// or the legacy X-Service-Api-Key. The first header present in that order is the credential;
// a bad value there is not rescued by a later header.
import type { IncomingHttpHeaders } from 'node:http';

export type Credential =
  | { kind: 'missing' }
  | { kind: 'present'; key: string; header: 'authorization' | 'x-api-key' | 'x-service-api-key' };

export function readCredential(headers: IncomingHttpHeaders): Credential {
  const authorization = single(headers.authorization);
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S*)\s*$/i.exec(authorization);
    // Another scheme (Basic from a proxy, say) is not ours: fall through to the key headers.
    if (match) return { kind: 'present', key: match[1] ?? '', header: 'authorization' };
  }
  for (const header of ['x-api-key', 'x-service-api-key'] as const) {
    const value = single(headers[header]);
    if (value !== undefined) return { kind: 'present', key: value.trim(), header };
  }
  return { kind: 'missing' };
}

function single(value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value)) return value.length === 1 ? value[0] : value.join(',');
  return value === undefined || value.trim() === '' ? undefined : value;
}

// Keys in URLs end up in access logs, proxies and browser history. These query parameter names
// (compared without case, `-` and `_`) are where clients put them; and a parameter whose name or
// value holds our key prefix anywhere carries one however it is written: `?flt_…` (the key as a
// name), `?a=b;flt_…` (`;` is a separator to some clients and proxies), `?q=Bearer%20flt_…`,
// percent-encoded once or more. No parameter of ours ever holds `flt_`, so nothing real is refused.
const KEY_PARAMETER_NAMES = new Set(['apikey', 'key', 'accesstoken', 'token']);
const KEY_PREFIX = 'flt_';
/** How a key written as a parameter name is named back (the name itself is the secret). */
const KEY_AS_NAME = 'flt_…';

/** `text` percent-decoded until it no longer changes (a key encoded twice is still a key). */
function decoded(text: string): string {
  let current = text.replace(/\+/g, ' ');
  for (let i = 0; i < 4; i++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return current;
    }
    if (next === current) break;
    current = next;
  }
  return current;
}

function holdsKey(text: string): boolean {
  return decoded(text).includes(KEY_PREFIX);
}

function isKeyParameter(name: string, value: string): boolean {
  return KEY_PARAMETER_NAMES.has(decoded(name).toLowerCase().replace(/[-_]/g, '')) || holdsKey(name) || holdsKey(value);
}

/** The query string of `url` split into its parameters (on `&` and `;`), as written (not yet decoded). */
function queryParameters(url: string): { name: string; value: string; part: string; separator: string }[] | null {
  const index = url.indexOf('?');
  if (index === -1) return null;
  const query = url.slice(index + 1);
  const parameters: { name: string; value: string; part: string; separator: string }[] = [];
  const pattern = /([^&;]*)([&;]|$)/g;
  for (let match = pattern.exec(query); match !== null; match = pattern.exec(query)) {
    const part = match[1]!;
    const separator = match[2]!;
    const eq = part.indexOf('=');
    parameters.push(eq === -1 ? { name: part, value: '', part, separator } : { name: part.slice(0, eq), value: part.slice(eq + 1), part, separator });
    if (separator === '') break;
  }
  return parameters;
}

/**
 * Names of the query parameters of `url` that carry (or are meant to carry) an API key, fit to be
 * quoted back: a name that is itself a key is given as `flt_…`.
 */
export function keyParametersIn(url: string): string[] {
  return (queryParameters(url) ?? [])
    .filter((p) => isKeyParameter(p.name, p.value))
    .map((p) => (holdsKey(p.name) ? KEY_AS_NAME : decoded(p.name)));
}

/**
 * `url` fit for a log line: the values of its key-carrying query parameters replaced (the whole
 * parameter when its name holds the key), and any path segment holding a key replaced (a key in the
 * path only ever meets a 404, but its log line must not keep it).
 */
export function redactKeyParameters(url: string): string {
  const index = url.indexOf('?');
  const path = (index === -1 ? url : url.slice(0, index))
    .split('/')
    .map((segment) => (holdsKey(segment) ? '[redacted]' : segment))
    .join('/');
  const parameters = queryParameters(url);
  if (parameters === null) return path;
  const parts = parameters.map((p) => {
    const part = !isKeyParameter(p.name, p.value) ? p.part : holdsKey(p.name) ? '[redacted]' : `${p.name}=[redacted]`;
    return part + p.separator;
  });
  return `${path}?${parts.join('')}`;
}

const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'x-service-api-key'];
const HEADER_NAMES: Record<string, string> = {
  authorization: 'Authorization',
  'x-api-key': 'X-Api-Key',
  'x-service-api-key': 'X-Service-Api-Key',
};

/**
 * Why the credential headers of a request are ambiguous, or null: a key header sent more than once
 * (Node keeps only the first Authorization and joins the others, so this reads the raw headers), or
 * different keys in different headers. Never first-wins: the caller must say which key it means.
 */
export function credentialConflict(rawHeaders: string[]): string | null {
  const values = new Map<string, string[]>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (!CREDENTIAL_HEADERS.includes(name)) continue;
    values.set(name, [...(values.get(name) ?? []), rawHeaders[i + 1]!.trim()]);
  }
  for (const [name, list] of values) {
    if (list.length > 1) return `The ${HEADER_NAMES[name]} header appears ${list.length} times; send the API key once`;
  }
  const bearer = /^Bearer\s+(\S*)\s*$/i.exec(values.get('authorization')?.[0] ?? '')?.[1];
  const keys = [bearer, values.get('x-api-key')?.[0], values.get('x-service-api-key')?.[0]].filter(
    (key): key is string => key !== undefined && key !== '',
  );
  if (new Set(keys).size > 1) return 'The request carries different API keys in different headers; send one';
  return null;
}
