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
// (compared without case, `-` and `_`) are where clients put them, and so is any value that looks
// like one of our keys.
const KEY_PARAMETER_NAMES = new Set(['apikey', 'key', 'accesstoken', 'token']);
const KEY_PREFIX = 'flt_';

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

function isKeyParameter(name: string, value: string): boolean {
  return KEY_PARAMETER_NAMES.has(decoded(name).toLowerCase().replace(/[-_]/g, '')) || decoded(value).trim().startsWith(KEY_PREFIX);
}

/** The query string of `url` split into its parameters, as written (not yet decoded). */
function queryParameters(url: string): { name: string; value: string; part: string }[] | null {
  const index = url.indexOf('?');
  if (index === -1) return null;
  return url
    .slice(index + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      return eq === -1 ? { name: part, value: '', part } : { name: part.slice(0, eq), value: part.slice(eq + 1), part };
    });
}

/** Names of the query parameters of `url` that carry (or are meant to carry) an API key. */
export function keyParametersIn(url: string): string[] {
  return (queryParameters(url) ?? []).filter((p) => isKeyParameter(p.name, p.value)).map((p) => decoded(p.name));
}

/** `url` with the values of its key-carrying query parameters replaced, fit for a log line. */
export function redactKeyParameters(url: string): string {
  const parameters = queryParameters(url);
  if (parameters === null) return url;
  const parts = parameters.map((p) => (isKeyParameter(p.name, p.value) ? `${p.name}=[redacted]` : p.part));
  return `${url.slice(0, url.indexOf('?'))}?${parts.join('&')}`;
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
