// Where a webhook may be sent (SSRF defence). A target URL must be absolute https (http only with
// FLIGHTSTATUS_WEBHOOK_ALLOW_HTTP=1), carry no credentials, and reach only public unicast addresses:
// loopback, private, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, unique-local,
// multicast, reserved and translated ranges are refused unless FLIGHTSTATUS_WEBHOOK_ALLOW_PRIVATE=1.
// The check runs at registration and again at send time inside the socket's own DNS lookup, on the
// very address the connection then uses, so a name that later resolves elsewhere (DNS rebinding)
// cannot get around it. Ranges come from ipaddr.js, which also unwraps IPv4-mapped IPv6 addresses.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface TargetPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
}

export const MAX_URL_LENGTH = 2048;

/** Why `address` may not be connected to, or null when it is a public unicast address. */
export function blockedAddress(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return 'not an IP address';
  }
  const range = parsed.range();
  return range === 'unicast' ? null : `${range} address`;
}

/** The URL's host without IPv6 brackets. */
const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

export class TargetRefusedError extends Error {
  readonly code = 'ETARGETREFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefusedError';
  }
}

/**
 * The syntax and scheme rules, and the address rule for hosts written as IP addresses (and for
 * `localhost`). Returns the parsed URL or a message naming the problem.
 */
export function checkTargetSyntax(text: string, policy: TargetPolicy): { ok: true; url: URL } | { ok: false; message: string } {
  if (text.length > MAX_URL_LENGTH) return { ok: false, message: `url must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: `url must be an absolute URL such as https://example.com/hooks (got "${text.slice(0, 100)}")` };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    return {
      ok: false,
      message:
        url.protocol === 'http:'
          ? 'url must use https (plain http is accepted only when the operator sets FLIGHTSTATUS_WEBHOOK_ALLOW_HTTP=1)'
          : `url must use https (got "${url.protocol.replace(/:$/, '')}")`,
    };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, message: 'url must not contain a user name or password; authenticate deliveries by their signature' };
  }
  if (url.hash !== '') return { ok: false, message: 'url must not contain a fragment (#…)' };
  if (!policy.allowPrivate) {
    const host = bareHost(url);
    if (host === 'localhost' || host.endsWith('.localhost')) {
      return { ok: false, message: `url must not point at a private address (${host} is loopback)` };
    }
    if (isIP(host) !== 0) {
      const reason = blockedAddress(host);
      if (reason) return { ok: false, message: `url must not point at a private address (${host} is a ${reason})` };
    }
  }
  return { ok: true, url };
}

export type Resolver = (host: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/**
 * The registration check: syntax and scheme, then every address the host resolves to now must be
 * public (unless private targets are allowed, when names are not resolved at all).
 */
export async function checkTarget(
  text: string,
  policy: TargetPolicy,
  resolve: Resolver = systemResolver,
): Promise<{ ok: true; url: URL } | { ok: false; message: string }> {
  const syntax = checkTargetSyntax(text, policy);
  if (!syntax.ok || policy.allowPrivate) return syntax;
  const host = bareHost(syntax.url);
  if (isIP(host) !== 0) return syntax;
  let addresses: LookupAddress[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'lookup failed';
    return { ok: false, message: `url host "${host}" does not resolve (${code})` };
  }
  for (const { address } of addresses) {
    const reason = blockedAddress(address);
    if (reason) return { ok: false, message: `url must not point at a private address (${host} resolves to ${address}, a ${reason})` };
  }
  return syntax;
}

/**
 * A socket lookup that refuses private addresses: passed to http.request, it decides the address the
 * connection is made to, so the check and the connection cannot disagree.
 */
export function guardedLookup(policy: TargetPolicy, resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const family = typeof options === 'object' ? options.family : undefined;
        const usable = addresses.filter((a) => !family || family === 0 || a.family === family);
        if (usable.length === 0) {
          const error: NodeJS.ErrnoException = new Error(`${hostname} has no address`);
          error.code = 'ENOTFOUND';
          return callback(error, '', 0);
        }
        if (!policy.allowPrivate) {
          for (const { address } of usable) {
            const reason = blockedAddress(address);
            if (reason) return callback(new TargetRefusedError(`${hostname} resolves to ${address}, a ${reason}`), '', 0);
          }
        }
        if (typeof options === 'object' && options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
