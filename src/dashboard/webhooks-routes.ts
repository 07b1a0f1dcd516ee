// The webhook pages: thin doors onto WebhookService, always with the signed-in user's account (an
// endpoint or delivery of another account is 404, as on the API).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardDeps, PageContext } from './context.js';
import { OVERLAPS, ROTATION_DEFAULT } from './webhooks-page.js';
import { formOf, formValues } from './forms.js';
import type { Html } from '../html.js';
import { notice } from './layout.js';
import { readFilter, type DeliveryFilterForm } from './deliveries-filter.js';
import { csrfToken } from './session.js';
import {
  endpointPage,
  webhooksPage,
  type DeliveryRow,
  type EndpointForm,
  type ResendForm,
  type SelectedDelivery,
} from './webhooks-page.js';
import { parseInstant } from '../clock.js';
import { RESENDABLE_STATES, type ResendableState } from '../webhooks/index.js';

const DELIVERIES_SHOWN = 50;

const DONE: Record<string, string> = {
  created: 'Endpoint added. Reveal its secret below to verify signatures, and send a test event.',
  enabled: 'Endpoint enabled: deliveries that waited are sent now.',
  disabled: 'Endpoint disabled: nothing is sent until it is enabled.',
  deleted: 'Endpoint deleted.',
  resent: 'Delivery queued: it is sent within the next delivery cycle.',
};

/** A `datetime-local` value (no zone), read as UTC like every time on the pages; null when it is not one. */
function utcInstant(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(text)) return null;
  return parseInstant(`${text}Z`);
}

export function webhookPages(scope: FastifyInstance, deps: DashboardDeps, ctx: PageContext): void {
  const { webhooks, catalogue } = deps;
  const accountOf = (request: FastifyRequest) => request.user!.accountId;
  const guarded = { preHandler: ctx.signedIn };

  const list = async (
    request: FastifyRequest,
    reply: FastifyReply,
    o: { form?: EndpointForm; done?: Html; status?: number } = {},
  ) => {
    const endpoints = await webhooks.list(accountOf(request));
    if (endpoints.kind !== 'ok') throw new Error(endpoints.message);
    const body = webhooksPage({
      csrf: csrfToken(request, reply),
      endpoints: endpoints.value.webhooks,
      airports: catalogue.airports,
      ...o,
    });
    return ctx.render(request, reply, 'Webhooks', body, {
      section: 'webhooks',
      accountName: await ctx.accountName(request),
      status: o.status,
    });
  };

  const detail = async (
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    o: {
      secret?: { value: string; rotated: boolean };
      done?: Html;
      rotateError?: string;
      resend?: ResendForm;
      selected?: string;
      status?: number;
      filter?: DeliveryFilterForm;
    } = {},
  ) => {
    const accountId = accountOf(request);
    const endpoint = await webhooks.get(accountId, id);
    if (endpoint.kind !== 'ok') return reply.callNotFound();
    const filter = o.filter ?? {};
    const read = readFilter(filter);
    const query = 'query' in read ? read.query : {};
    let page = await webhooks.deliveries(accountId, id, { limit: DELIVERIES_SHOWN, ...query });
    // A `before` from another page of other filters: the newest page instead.
    if (page.kind === 'invalid' && 'before' in query)
      page = await webhooks.deliveries(accountId, id, { limit: DELIVERIES_SHOWN, ...query, before: undefined });
    if (page.kind !== 'ok') throw new Error(page.message);
    const { selected: wanted, status, filter: _filter, ...shown } = o;
    const one = wanted === undefined ? null : await webhooks.delivery(accountId, id, wanted);
    if (one && one.kind !== 'ok') return reply.callNotFound();
    const picked = one?.kind === 'ok' ? one.value : null;
    // One read of the events' flights, for the list and the delivery shown.
    const flights = await webhooks.flightsOf([
      ...page.value.deliveries.map((d) => d.event),
      ...(picked ? [picked.event] : []),
    ]);
    const rows: DeliveryRow[] = page.value.deliveries.map((d) => ({ ...d, flight: flights.get(d.event) ?? null }));
    const selected: SelectedDelivery | null = picked ? { ...picked, flight: flights.get(picked.event) ?? null } : null;
    const filterProblem = 'problem' in read ? read.problem : null;
    const body = endpointPage({
      csrf: csrfToken(request, reply),
      endpoint: endpoint.value,
      deliveries: rows,
      selected,
      filter,
      filterProblem,
      nextBefore: page.value.nextBefore ?? null,
      now: deps.clock.now(),
      ...shown,
    });
    return ctx.render(request, reply, endpoint.value.name, body, {
      section: 'webhooks',
      accountName: await ctx.accountName(request),
      status: status ?? (filterProblem ? 400 : undefined),
    });
  };

  scope.get<{ Querystring: { done?: string } }>('/webhooks', guarded, (request, reply) => {
    const done = DONE[request.query.done ?? ''];
    return list(request, reply, { done: done ? notice('ok', done) : undefined });
  });

  scope.post('/webhooks', guarded, async (request, reply) => {
    const form = formOf(request);
    const airports = formValues(request).airports ?? [];
    const events = formValues(request).events ?? [];
    const typed: EndpointForm = { name: form.name ?? '', url: form.url ?? '', airports, events };
    const errors: NonNullable<EndpointForm['errors']> = {};
    if (typed.name!.trim() === '') errors.name = 'Give the endpoint a name';
    if (typed.url!.trim() === '') errors.url = 'Enter the URL that receives the events';
    if (Object.keys(errors).length > 0) return list(request, reply, { form: { ...typed, errors }, status: 400 });
    const created = await webhooks.create(accountOf(request), { name: typed.name!, url: typed.url!, airports, events });
    if (created.kind !== 'ok') {
      // The service's message names the field it is about.
      const field = /^airports/.test(created.message)
        ? 'airports'
        : /^events/.test(created.message)
          ? 'form'
          : /^name/.test(created.message)
            ? 'name'
            : created.kind === 'conflict'
              ? 'form'
              : 'url';
      return list(request, reply, {
        form: { ...typed, errors: { [field]: created.message } },
        status: created.kind === 'conflict' ? 409 : 400,
      });
    }
    return reply.redirect(`/dashboard/webhooks/${created.value.id}?done=created`, 303);
  });

  scope.get<{
    Params: { id: string };
    Querystring: { done?: string; delivery?: string; resent?: string } & DeliveryFilterForm;
  }>('/webhooks/:id', guarded, (request, reply) => {
    const { state, type, flight, from, to, before } = request.query;
    const filter = Object.fromEntries(
      Object.entries({ state, type, flight, from, to, before }).filter(([, v]) => typeof v === 'string'),
    ) as DeliveryFilterForm;
    const resent = /^\d{1,9}$/.test(request.query.resent ?? '') ? Number(request.query.resent) : null;
    const done =
      resent === null
        ? DONE[request.query.done ?? '']
        : resent === 0
          ? 'Nothing to resend since then.'
          : `${resent} ${resent === 1 ? 'delivery' : 'deliveries'} queued again: they are sent within the next delivery cycle.`;
    return detail(request, reply, request.params.id, {
      done: done ? notice('ok', done) : undefined,
      selected: request.query.delivery,
      filter,
    });
  });

  scope.post<{ Params: { id: string } }>('/webhooks/:id/reveal', guarded, async (request, reply) => {
    const secret = await webhooks.secret(accountOf(request), request.params.id);
    if (secret.kind !== 'ok') return reply.callNotFound();
    return detail(request, reply, request.params.id, { secret: { value: secret.value.secret, rotated: false } });
  });

  scope.post<{ Params: { id: string } }>('/webhooks/:id/rotate', guarded, async (request, reply) => {
    const { id } = request.params;
    const form = formOf(request);
    const overlap = OVERLAPS.find((o) => String(o.seconds) === (form.overlap ?? String(ROTATION_DEFAULT)));
    if (form.confirm !== 'yes' || !overlap) {
      return detail(request, reply, id, {
        rotateError: overlap
          ? 'Tick the box to confirm: your receiver needs the new secret before the old one stops'
          : 'Choose how long the old secret goes on signing',
        status: 400,
      });
    }
    const rotated = await webhooks.rotate(accountOf(request), id, overlap.seconds);
    if (rotated.kind !== 'ok') return reply.callNotFound();
    return detail(request, reply, id, {
      secret: { value: rotated.value.secret, rotated: true },
      done: notice('ok', 'Secret rotated.'),
    });
  });

  scope.post<{ Params: { id: string } }>('/webhooks/:id/test', guarded, async (request, reply) => {
    const { id } = request.params;
    const result = await webhooks.test(accountOf(request), id);
    if (result.kind === 'not_found') return reply.callNotFound();
    if (result.kind === 'rate_limited') {
      reply.header('retry-after', String(result.retryAfterSeconds));
      return detail(request, reply, id, { done: notice('bad', result.message), status: 429 });
    }
    if (result.kind !== 'ok') return detail(request, reply, id, { done: notice('bad', result.message), status: 400 });
    const r = result.value;
    const said = r.delivered
      ? notice('ok', `Test event delivered: your endpoint answered ${r.statusCode} in ${Math.round(r.durationMs)} ms.`)
      : notice(
          'bad',
          `Test event not delivered: ${r.statusCode !== null ? `your endpoint answered ${r.statusCode}` : (r.error ?? 'no answer')}.`,
        );
    return detail(request, reply, id, { done: said, selected: r.deliveryId });
  });

  // The address of an action's answer (after a reveal or a test), opened again: the endpoint's page.
  scope.get<{ Params: { id: string; action: string } }>('/webhooks/:id/:action', guarded, (request, reply) =>
    reply.redirect(`/dashboard/webhooks/${encodeURIComponent(request.params.id)}`, 303),
  );

  scope.post<{ Params: { id: string; action: string } }>('/webhooks/:id/:action', guarded, async (request, reply) => {
    const { id, action } = request.params;
    const accountId = accountOf(request);
    const result =
      action === 'enable'
        ? await webhooks.enable(accountId, id)
        : action === 'disable'
          ? await webhooks.disable(accountId, id)
          : action === 'delete'
            ? await webhooks.remove(accountId, id)
            : null;
    if (!result || result.kind !== 'ok') return reply.callNotFound();
    return reply.redirect(
      action === 'delete' ? '/dashboard/webhooks?done=deleted' : `/dashboard/webhooks/${id}?done=${action}d`,
      303,
    );
  });

  scope.post<{ Params: { id: string } }>('/webhooks/:id/deliveries/resend', guarded, async (request, reply) => {
    const { id } = request.params;
    const typed: ResendForm = { since: formOf(request).since ?? '', states: formValues(request).states ?? [] };
    const since = utcInstant(typed.since!.trim());
    const states = typed.states!.filter((s): s is ResendableState =>
      (RESENDABLE_STATES as readonly string[]).includes(s),
    );
    const error =
      since === null
        ? 'Enter a date and time (UTC), e.g. 2026-03-01 06:00'
        : states.length === 0 || states.length !== typed.states!.length
          ? 'Tick what to resend: kept while disabled, failed, or both'
          : null;
    if (error) return detail(request, reply, id, { resend: { ...typed, error }, status: 400 });
    const result = await webhooks.resendSince(accountOf(request), id, { since: since!, states });
    if (result.kind === 'not_found') return reply.callNotFound();
    if (result.kind !== 'ok')
      return detail(request, reply, id, { resend: { ...typed, error: result.message }, status: 400 });
    return reply.redirect(`/dashboard/webhooks/${id}?resent=${result.value.resent}`, 303);
  });

  scope.post<{ Params: { id: string; delivery: string } }>(
    '/webhooks/:id/deliveries/:delivery/resend',
    guarded,
    async (request, reply) => {
      const { id, delivery } = request.params;
      const result = await webhooks.resend(accountOf(request), id, delivery);
      if (result.kind === 'not_found') return reply.callNotFound();
      if (result.kind !== 'ok')
        return detail(request, reply, id, { done: notice('bad', result.message), selected: delivery, status: 409 });
      return reply.redirect(`/dashboard/webhooks/${id}?done=resent&delivery=${delivery}`, 303);
    },
  );
}
