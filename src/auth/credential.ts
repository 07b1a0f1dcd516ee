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
