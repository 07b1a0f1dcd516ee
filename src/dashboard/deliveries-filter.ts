// The delivery log's filters and pages on an endpoint's page, as the API has them (GET
// /api/v1/webhooks/{id}/deliveries): state, event type, flight and days, newest first, a page at a
// time with "Older" following `nextBefore`. A GET form, so a filtered page has its own address.
import { EVENT_TYPES, WATCH_ONLY_EVENT_TYPES } from '../boards/index.js';
import { ACCOUNT_EVENT_TYPES, DELIVERY_STATES, deliveryFilter, type DeliveryQuery } from '../webhooks/index.js';
import { html, type Html } from '../html.js';

export interface DeliveryFilterForm {
  state?: string;
  type?: string;
  flight?: string;
  from?: string;
  to?: string;
  before?: string;
}

const TYPES = [...EVENT_TYPES, ...WATCH_ONLY_EVENT_TYPES, 'flight.settled', ...ACCOUNT_EVENT_TYPES, 'webhook.test'];

/** The form's values as the service's query, or the problem to show beside the filters. */
export function readFilter(form: DeliveryFilterForm): { query: Omit<DeliveryQuery, 'limit'> } | { problem: string } {
  const state = form.state?.trim() ?? '';
  if (state !== '' && !(DELIVERY_STATES as readonly string[]).includes(state))
    return { problem: `State must be one of ${DELIVERY_STATES.join(', ')}` };
  const rest = deliveryFilter(form);
  if ('problem' in rest) return { problem: rest.problem.charAt(0).toUpperCase() + rest.problem.slice(1) };
  const before = form.before && /^dlv_[A-Za-z0-9]{1,40}$/.test(form.before) ? form.before : undefined;
  return {
    query: {
      ...rest,
      ...(state ? { state: state as (typeof DELIVERY_STATES)[number] } : {}),
      ...(before ? { before } : {}),
    },
  };
}

/** The link to another page of the same filters. */
export function filterHref(endpointId: string, form: DeliveryFilterForm, before?: string): string {
  const params = new URLSearchParams();
  for (const name of ['state', 'type', 'flight', 'from', 'to'] as const)
    if (form[name]?.trim()) params.set(name, form[name]!.trim());
  if (before) params.set('before', before);
  const query = params.toString();
  return `/dashboard/webhooks/${endpointId}${query ? `?${query}` : ''}#deliveries`;
}

export function filterForm(endpointId: string, form: DeliveryFilterForm, problem: string | null): Html {
  const option = (value: string, chosen: string | undefined, label = value) =>
    html`<option value="${value}"${chosen === value ? html` selected` : ''}>${label}</option>`;
  return html`<form method="get" action="/dashboard/webhooks/${endpointId}#deliveries" class="filters" aria-label="Filter deliveries">
    ${problem ? html`<p class="error" id="filter-error" role="alert">${problem}</p>` : ''}
    <div class="filter-fields">
      <p><label for="f-state">State</label><select id="f-state" name="state">${option('', form.state, 'Any')}${DELIVERY_STATES.map((s) => option(s, form.state))}</select></p>
      <p><label for="f-type">Event</label><select id="f-type" name="type">${option('', form.type, 'Any')}${TYPES.map((t) => option(t, form.type))}</select></p>
      <p><label for="f-flight">Flight</label><input type="text" id="f-flight" name="flight" value="${form.flight ?? ''}" placeholder="W63101" autocomplete="off"${problem?.startsWith('Flight') ? html` aria-invalid="true" aria-describedby="filter-error"` : ''}></p>
      <p><label for="f-from">From (UTC)</label><input type="date" id="f-from" name="from" value="${form.from ?? ''}"></p>
      <p><label for="f-to">To (UTC)</label><input type="date" id="f-to" name="to" value="${form.to ?? ''}"></p>
    </div>
    <p><button class="secondary" type="submit">Filter</button> <a href="/dashboard/webhooks/${endpointId}#deliveries">Clear</a></p>
  </form>`;
}

/** "Newest" (when on an older page) and "Older" (when there is more). */
export function pager(endpointId: string, form: DeliveryFilterForm, nextBefore: string | null): Html {
  const newest = form.before ? html`<a href="${filterHref(endpointId, form)}">← Newest</a>` : '';
  const older = nextBefore ? html`<a href="${filterHref(endpointId, form, nextBefore)}">Older deliveries →</a>` : '';
  return newest || older ? html`<nav class="pager" aria-label="Pages of deliveries">${newest} ${older}</nav>` : html``;
}
