// The service's address as a client reaches it, for links a response carries whole (a spreadsheet's
// evidence link, a key page's examples): FLIGHTSTATUS_PUBLIC_URL when set, else the scheme and host
// the request came in on (behind a proxy, as trustProxy lets Fastify read them).
import type { FastifyRequest } from 'fastify';

export function baseUrl(request: FastifyRequest, publicUrl: string | null): string {
  return (publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
}
