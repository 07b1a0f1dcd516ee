// Where a webhook may be sent (SSRF defence). A target URL must be absolute https (http only with
// FLIGHTSTATUS_WEBHOOK_ALLOW_HTTP=1), carry no credentials, and reach only public unicast addresses:
// loopback, private, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, unique-local,
// multicast, reserved and translated ranges are refused unless FLIGHTSTATUS_WEBHOOK_ALLOW_PRIVATE=1.
// The check runs at registration and again at send time inside the socket's own DNS lookup, on the
// very address the connection then uses, so a name that later resolves elsewhere (DNS rebinding)
// cannot get around it. Ranges come from ipaddr.js, which also unwraps IPv4-mapped IPv6 addresses;
// the other IPv6 forms that embed an IPv4 address are judged by the IPv4 address they carry.
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
    // process() turns IPv4-mapped IPv6 (::ffff:a.b.c.d) into the IPv4 address itself.
    parsed = ipaddr.process(address);
  } catch {
    return 'not an IP address';
  }
  if (parsed.kind() === 'ipv6') {
    const embedded = embeddingRule(parsed as ipaddr.IPv6);
    if (embedded !== undefined) return embedded;
  }
  const range = parsed.range();
  return range === 'unicast' ? null : `${range} address`;
}

const ipv4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/**
 * IPv6 forms that carry an IPv4 address, which a relay or translator may turn into a connection to
 * that IPv4 address: the embedded address must pass the IPv4 rules. Decided here rather than by
 * ipaddr.js's range table, so that a library update cannot open one of them. Returns the refusal, null
 * for an allowed form, or undefined when the address is none of these forms (the ordinary rules apply).
 *
 * - ::/96, IPv4-compatible (deprecated by RFC 4291; `[::127.0.0.1]` is `::7f00:1`): always refused.
 * - 64:ff9b::/96, the well-known NAT64 prefix (RFC 6052): allowed when the IPv4 address is public, so
 *   a service on an IPv6-only network behind DNS64 can still reach IPv4-only receivers.
 * - 64:ff9b:1::/48, local-use NAT64 (RFC 8215): where it translates to is the network's own choice;
 *   always refused.
 * - 2002::/16, 6to4 (IPv4 in bits 16-48), and 2001::/32, Teredo (server IPv4 in bits 32-64, client
 *   IPv4 in the last 32 bits inverted): relay mechanisms no receiver needs; always refused, naming a
 *   refused embedded address when there is one.
 */
function embeddingRule(v6: ipaddr.IPv6): string | null | undefined {
  const p = v6.parts;
  const zeros = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  const judged = (form: string, v4s: ipaddr.IPv4[], allowWhenPublic: boolean): string | null => {
    for (const v4 of v4s) {
      const range = v4.range();
      if (range !== 'unicast') return `${form} address of ${v4.toString()}, a ${range} address`;
    }
    return allowWhenPublic ? null : `${form} address (refused whatever it embeds)`;
  };
  // :: and ::1 keep their own names (unspecified, loopback).
  if (zeros(0, 6) && !(p[6] === 0 && p[7]! <= 1))
    return judged('deprecated IPv4-compatible', [ipv4Of(p[6]!, p[7]!)], false);
  if (p[0] === 0x64 && p[1] === 0xff9b) {
    if (zeros(2, 6)) return judged('NAT64', [ipv4Of(p[6]!, p[7]!)], true);
    if (p[2] === 1) return 'local-use NAT64 address (64:ff9b:1::/48, translated as the local network decides)';
  }
  if (p[0] === 0x2002) return judged('6to4', [ipv4Of(p[1]!, p[2]!)], false);
  if (p[0] === 0x2001 && p[1] === 0)
    return judged('Teredo', [ipv4Of(p[2]!, p[3]!), ipv4Of(~p[6]! & 0xffff, ~p[7]! & 0xffff)], false);
  return undefined;
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
export function checkTargetSyntax(
  text: string,
  policy: TargetPolicy,
): { ok: true; url: URL } | { ok: false; message: string } {
  if (text.length > MAX_URL_LENGTH) return { ok: false, message: `url must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return {
      ok: false,
      message: `url must be an absolute URL such as https://example.com/hooks (got "${text.slice(0, 100)}")`,
    };
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
    return {
      ok: false,
      message: 'url must not contain a user name or password; authenticate deliveries by their signature',
    };
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
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

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
    if (reason)
      return {
        ok: false,
        message: `url must not point at a private address (${host} resolves to ${address}, a ${reason})`,
      };
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
            if (reason)
              return callback(new TargetRefusedError(`${hostname} resolves to ${address}, a ${reason}`), '', 0);
          }
        }
        if (typeof options === 'object' && options.all)
          (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
