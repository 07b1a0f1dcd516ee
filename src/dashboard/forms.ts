// Posted forms (application/x-www-form-urlencoded): parsed once by the dashboard's content parser,
// read by the pages.
import type { FastifyRequest } from 'fastify';

/** A posted form: every value of each name, in order (checkbox lists repeat a name). */
export type Form = Record<string, string[]>;

export function parseForm(body: string): Form {
  const form: Form = Object.create(null);
  for (const [name, value] of new URLSearchParams(body)) (form[name] ??= []).push(value);
  return form;
}

/** The first value of each field of a POST's form (empty when there was none). */
export function formOf(request: FastifyRequest): Record<string, string> {
  return Object.fromEntries(Object.entries(formValues(request)).map(([name, values]) => [name, values[0] ?? '']));
}

/** Every value of each field of a POST's form. */
export function formValues(request: FastifyRequest): Form {
  const body = request.body;
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Form) : {};
}
