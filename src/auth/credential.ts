// Where a request carries its API key (README.md, "The API"): Authorization: Bearer (preferred), X-Api-Key,
// or the legacy X-Service-Api-Key. The first header present in that order is the credential;
// a bad value there is not rescued by a later header.
import type { IncomingHttpHeaders } from 'node:http';
import { KEY_PREFIX, KEY_SECRET_LENGTH } from './keys.js';

export type Credential =
  { kind: 'missing' } | { kind: 'present'; key: string; header: 'authorization' | 'x-api-key' | 'x-service-api-key' };

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
// value holds a key anywhere carries one however it is written: `?flt_…` (the key as a name),
// `?a=b;flt_…` (`;` is a separator to some clients and proxies), `?q=Bearer%20flt_…`, percent-encoded
// once or more, its prefix in another case (`FLT_…`) or altered (`flt-…`, `x_…`), or the secret alone.
const KEY_PARAMETER_NAMES = new Set(['apikey', 'key', 'accesstoken', 'token']);
/** How a key written as a parameter name is named back (the name itself is the secret). */
const KEY_AS_NAME = 'flt_…';
/** The prefix in any case: no parameter of ours ever holds it. */
const PREFIX = new RegExp(KEY_PREFIX, 'i');
/** Runs of base64url characters, the alphabet a key's secret (base62) and our tokens are drawn from. */
const RUN = /[A-Za-z0-9_-]+/g;
/**
 * A run ending with the secret behind a short prefix other than ours: `flt-…`, `flt…`, `x_…`,
 * `whsec_…` (at most 12 characters before the secret's 43).
 */
const BEHIND_PREFIX = new RegExp(`^[A-Za-z0-9_-]{0,11}(?:[_-]|flt)[0-9A-Za-z]{${KEY_SECRET_LENGTH}}$`, 'i');
/**
 * The dashboard's own parameters whose values are tokens as long as a key's secret: a form's CSRF
 * token (a SHA-256 in base64url, 43 characters) and the page to return to after signing in (a reset,
 * verification or invitation link's path holds its 43-character token). A secret alone there is
 * redacted from the logs like any, but not refused; the prefix is refused there too.
 */
const OWN_TOKEN_PARAMETERS = new Set(['_csrf', 'next']);

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

/** Whether `text` holds our key prefix in any case. */
function holdsPrefix(text: string): boolean {
  return PREFIX.test(decoded(text));
}

/**
 * Whether `text` holds a key's secret without our prefix: a run of exactly its 43 characters (not
 * part of a longer run), or one behind another short prefix. Ids (`bat_` and 20 characters), dates,
 * flight numbers and cursors of ours are far shorter.
 */
function holdsSecret(text: string): boolean {
  for (const [run] of decoded(text).matchAll(RUN)) {
    if (run.length === KEY_SECRET_LENGTH || (run.length > KEY_SECRET_LENGTH && BEHIND_PREFIX.test(run))) return true;
  }
  return false;
}

function holdsKey(text: string): boolean {
  return holdsPrefix(text) || holdsSecret(text);
}

/** Whether a parameter carries (or is meant to carry) a key: refused at the door. */
function isKeyParameter(name: string, value: string): boolean {
  const plain = decoded(name);
  if (KEY_PARAMETER_NAMES.has(plain.toLowerCase().replace(/[-_]/g, '')) || holdsKey(name) || holdsPrefix(value))
    return true;
  return !OWN_TOKEN_PARAMETERS.has(plain) && holdsSecret(value);
}

/** Whether a parameter's value is kept out of the logs: a key, or one of our own tokens. */
function isRedacted(name: string, value: string): boolean {
  return isKeyParameter(name, value) || holdsSecret(value);
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
    parameters.push(
      eq === -1
        ? { name: part, value: '', part, separator }
        : { name: part.slice(0, eq), value: part.slice(eq + 1), part, separator },
    );
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
 * parameter when its name holds the key), our own tokens' values too (`_csrf`, a `next` path with a
 * link's token), and any path segment holding a key or a token of that length replaced (a key in the
 * path only ever meets a 404, but its log line must not keep it; a reset, verification or invitation
 * link's token is a secret too).
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
    const part = !isRedacted(p.name, p.value) ? p.part : holdsKey(p.name) ? '[redacted]' : `${p.name}=[redacted]`;
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
