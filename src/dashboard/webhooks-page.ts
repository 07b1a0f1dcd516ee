// Webhook endpoints: the list with each one's state, a form to add one (airports picked from the
// catalogue, with a search box when scripts run), and one endpoint's page: its secret (revealed on
// request, rotated after a confirmation), a test send with its result, enable/disable, delete, and
// its deliveries with the attempts of each, a resend button, and "resend everything since…".
import type { Airport } from '../airports/index.js';
import type { AttemptView, DeliveryView, WebhookView } from '../webhooks/index.js';
import { html, type Html } from '../html.js';
import { csrfInput, field, notice, timeTag } from './layout.js';
import { filterForm, pager, type DeliveryFilterForm } from './deliveries-filter.js';

const when = (iso: string | null) => timeTag(iso, { seconds: true });

function state(view: WebhookView): Html {
  if (view.enabled) {
    if (view.consecutiveFailures === 0) return html`<span class="badge ok">enabled</span>`;
    return html`<span class="badge warn">enabled, ${view.consecutiveFailures} failures in a row</span>${
      view.pausedUntil ? html` <span class="hint">paused until ${when(view.pausedUntil)}</span>` : ''
    }`;
  }
  return html`<span class="badge bad">disabled</span>${view.disabledReason ? html` <span class="hint">${view.disabledReason}</span>` : ''}`;
}

/** How long a rotated secret may go on signing, as the rotate form offers it (the API takes any number of seconds up to 7 days). */
export const OVERLAPS = [
  { seconds: 0, label: 'no longer: it stops at once' },
  { seconds: 3600, label: 'for 1 hour' },
  { seconds: 86_400, label: 'for 24 hours' },
  { seconds: 604_800, label: 'for 7 days' },
] as const;
export const ROTATION_DEFAULT = 86_400;

export interface EndpointForm {
  name?: string;
  url?: string;
  airports?: string[];
  /** Account events it also receives (batch.completed). */
  events?: string[];
  errors?: { name?: string; url?: string; airports?: string; form?: string };
}

export function webhooksPage(o: {
  csrf: string;
  endpoints: WebhookView[];
  airports: readonly Airport[];
  form?: EndpointForm;
  done?: Html;
}): Html {
  const f = o.form ?? {};
  const picked = new Set(f.airports ?? []);
  return html`<h1>Webhooks</h1>
    ${o.done ?? ''}
    <p>Each endpoint receives every event of the airports it watches as a signed <code>POST</code>, retried until it answers 2xx (<a href="/docs">API docs</a>).</p>
    <h2>Your endpoints</h2>
    ${
      o.endpoints.length === 0
        ? html`<p>No endpoints yet.</p>`
        : html`<table>
            <thead><tr><th scope="col">Name</th><th scope="col">URL</th><th scope="col">Airports</th><th scope="col">State</th></tr></thead>
            <tbody>${o.endpoints.map(
              (e) =>
                html`<tr><td><a href="/dashboard/webhooks/${e.id}">${e.name}</a></td><td><code>${e.url}</code></td><td>${e.airports.length > 0 ? e.airports.join(', ') : 'none (watches only)'}</td><td>${state(e)}</td></tr>`,
            )}</tbody>
          </table>`
    }
    <h2 id="add-heading">Add an endpoint</h2>
    ${f.errors?.form ? notice('bad', f.errors.form) : ''}
    <form method="post" action="/dashboard/webhooks" novalidate aria-labelledby="add-heading">
      ${csrfInput(o.csrf)}
      ${field({ name: 'name', label: 'Name', value: f.name ?? '', error: f.errors?.name, hint: 'For you, e.g. “claims intake (production)”.' })}
      ${field({ name: 'url', label: 'URL', type: 'url', value: f.url ?? '', error: f.errors?.url, hint: 'An https:// address of yours that answers 2xx.' })}
      <fieldset aria-describedby="airports-hint${f.errors?.airports ? ' airports-error' : ''}">
        <legend>Airports</legend>
        <p class="hint" id="airports-hint">Events of these airports’ boards are sent to the endpoint. Pick none for an endpoint that receives only the flights you <a href="/dashboard/watches">watch</a> (and the account events ticked below).</p>
        ${f.errors?.airports ? html`<p class="error" id="airports-error">${f.errors.airports}</p>` : ''}
        <label for="airport-search" class="visually-hidden">Search airports</label>
        <input type="search" id="airport-search" placeholder="Search by code, city or name" data-filter="airport-list" hidden>
        <ul class="airports" id="airport-list">${o.airports.map(
          (a) =>
            html`<li data-text="${`${a.iata} ${a.icao} ${a.city} ${a.name} ${a.country}`.toLowerCase()}"><input type="checkbox" name="airports" value="${a.iata}" id="ap-${a.iata}"${picked.has(a.iata) ? html` checked` : ''}> <label for="ap-${a.iata}"><strong>${a.iata}</strong> ${a.city}, ${a.name}</label></li>`,
        )}</ul>
      </fieldset>
      <fieldset>
        <legend>Account events</legend>
        <p><input type="checkbox" name="events" value="batch.completed" id="ev-batch-completed"${(f.events ?? []).includes('batch.completed') ? html` checked` : ''}> <label for="ev-batch-completed"><code>batch.completed</code>: when a batch of this account finishes</label></p>
      </fieldset>
      <p><button type="submit">Add endpoint</button></p>
    </form>`;
}

export interface DeliveryRow extends DeliveryView {
  flight: string | null;
}

export interface SelectedDelivery extends DeliveryRow {
  attemptLog: AttemptView[];
}

/** The "resend everything since…" form as typed, with its error. */
export interface ResendForm {
  since?: string;
  states?: string[];
  error?: string;
}

export function endpointPage(o: {
  csrf: string;
  endpoint: WebhookView;
  deliveries: DeliveryRow[];
  selected: SelectedDelivery | null;
  secret?: { value: string; rotated: boolean };
  done?: Html;
  rotateError?: string;
  resend?: ResendForm;
  filter: DeliveryFilterForm;
  filterProblem: string | null;
  nextBefore: string | null;
  /** The service clock's now: whether a rotated secret still signs. */
  now: number;
}): Html {
  const e = o.endpoint;
  const action = (path: string, label: string, attrs: Html | string = '', cls = 'secondary') =>
    html`<form class="inline" method="post" action="/dashboard/webhooks/${e.id}/${path}"${attrs}>${csrfInput(o.csrf)}<button class="${cls}" type="submit">${label}</button></form>`;
  return html`<p><a href="/dashboard/webhooks">← All endpoints</a></p>
    <h1>${e.name}</h1>
    ${o.done ?? ''}
    <dl class="stats">
      <div><dt>URL</dt><dd><code>${e.url}</code></dd></div>
      <div><dt>Airports</dt><dd>${e.airports.length > 0 ? e.airports.join(', ') : 'none (watches only)'}</dd></div>
      <div><dt>Account events</dt><dd>${e.events.length > 0 ? e.events.join(', ') : 'none'}</dd></div>
      <div><dt>State</dt><dd>${state(e)}</dd></div>
    </dl>
    <div class="actions">
      ${action('test', 'Send a test event', '', '')}
      ${e.enabled ? action('disable', 'Disable') : action('enable', 'Enable')}
      ${action('delete', 'Delete endpoint', html` data-confirm="Delete the endpoint “${e.name}” and its deliveries? Nothing more will be sent to it."`, 'danger')}
    </div>
    <h2>Signing secret</h2>
    <p>Receivers check the <code>X-Flight-Signature</code> header with it (docs: webhooks).</p>
    ${
      o.secret
        ? html`<code class="secret" id="endpoint-secret">${o.secret.value}</code>
            <div class="actions"><button type="button" class="secondary" data-copy="endpoint-secret">Copy secret</button><span id="endpoint-secret-status" role="status"></span></div>
            ${o.secret.rotated ? html`<p class="hint">This is the new secret; ${e.previousSecretUntil ? html`the old one also signs each attempt until ${timeTag(e.previousSecretUntil)}.` : 'the old one stopped working now.'}</p>` : ''}`
        : action('reveal', 'Reveal secret')
    }
    ${
      !o.secret?.rotated && e.previousSecretUntil && Date.parse(e.previousSecretUntil) > o.now
        ? html`<p id="previous-secret">The secret before the last rotation also signs each attempt until ${timeTag(e.previousSecretUntil)}.</p>`
        : ''
    }
    <form method="post" action="/dashboard/webhooks/${e.id}/rotate" novalidate>
      ${csrfInput(o.csrf)}
      ${o.rotateError ? html`<p class="error" id="confirm-error">${o.rotateError}</p>` : ''}
      <p><label for="rotate-overlap">The old secret goes on signing beside the new one</label>
      <select id="rotate-overlap" name="overlap">${OVERLAPS.map((v) => html`<option value="${v.seconds}"${v.seconds === ROTATION_DEFAULT ? html` selected` : ''}>${v.label}</option>`)}</select></p>
      <p><input type="checkbox" name="confirm" value="yes" id="rotate-confirm"${o.rotateError ? html` aria-invalid="true" aria-describedby="confirm-error"` : ''}>
      <label for="rotate-confirm" class="inline-label">I understand the old secret stops signing when that time is over</label></p>
      <button class="secondary" type="submit">Rotate secret</button>
    </form>
    <h2 id="deliveries">Deliveries</h2>
    ${o.selected ? deliveryDetail(o.selected, e.id, o.csrf) : ''}
    ${resendForm(e, o.csrf, o.resend ?? {})}
    ${filterForm(e.id, o.filter, o.filterProblem)}
    ${
      o.deliveries.length === 0
        ? filtering(o.filter)
          ? html`<p>No deliveries match these filters.</p>`
          : html`<p>No deliveries yet. Send a test event, or wait for the airports’ boards to change.</p>`
        : html`<table>
            <thead><tr><th scope="col">Event</th><th scope="col">Flight</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Created</th></tr></thead>
            <tbody>${o.deliveries.map(
              (d) => html`<tr>
                <td><a href="/dashboard/webhooks/${e.id}?delivery=${d.id}#deliveries">${d.type}</a></td>
                <td>${d.flight ?? '—'}</td>
                <td>${d.state}</td>
                <td>${d.attempts}</td>
                <td>${d.lastStatusCode ?? (d.lastError ? 'no answer' : '—')}</td>
                <td>${when(d.createdAt)}</td>
              </tr>`,
            )}</tbody>
          </table>`
    }
    ${pager(e.id, o.filter, o.nextBefore)}`;
}

const filtering = (form: DeliveryFilterForm) =>
  ['state', 'type', 'flight', 'from', 'to', 'before'].some(
    (name) => (form[name as keyof DeliveryFilterForm] ?? '').trim() !== '',
  );

/**
 * Resend everything since a time: deliveries kept while the endpoint was disabled (skipped) and those
 * whose retries ran out (failed). The time is UTC, as every time on these pages.
 */
function resendForm(e: WebhookView, csrf: string, f: ResendForm): Html {
  const states = new Set(f.states ?? ['skipped', 'failed']);
  const box = (value: string, label: string) =>
    html`<input type="checkbox" name="states" value="${value}" id="resend-${value}"${states.has(value) ? html` checked` : ''}> <label for="resend-${value}" class="inline-label">${label}</label>`;
  return html`<form method="post" action="/dashboard/webhooks/${e.id}/deliveries/resend" novalidate aria-labelledby="resend-heading">
      <h3 id="resend-heading">Resend everything since…</h3>
      ${csrfInput(csrf)}
      ${field({
        name: 'since',
        label: 'Since (UTC)',
        type: 'datetime-local',
        value: f.since ?? '',
        error: f.error,
        hint: e.enabled
          ? 'Deliveries created at or after this time are sent again on the next delivery cycle, with their ids.'
          : 'Enable the endpoint first.',
      })}
      <p>${box('skipped', 'kept while the endpoint was disabled')} ${box('failed', 'failed after every retry')}</p>
      <button class="secondary" type="submit"${e.enabled ? '' : html` disabled`}>Resend</button>
    </form>`;
}

function deliveryDetail(d: SelectedDelivery, endpointId: string, csrf: string): Html {
  return html`<section class="notice" aria-labelledby="delivery-heading">
    <h3 id="delivery-heading">Delivery <code>${d.id}</code></h3>
    <table>
      <tbody>
        <tr><th scope="row">Event</th><td>${d.type} <code>${d.event}</code>${d.flight ? html` · flight ${d.flight}` : ''}</td></tr>
        <tr><th scope="row">State</th><td>${d.state}</td></tr>
        <tr><th scope="row">Attempts</th><td>${d.attempts}</td></tr>
        <tr><th scope="row">Next attempt</th><td>${when(d.nextAttemptAt)}</td></tr>
        <tr><th scope="row">Delivered</th><td>${when(d.deliveredAt)}</td></tr>
      </tbody>
    </table>
    ${
      d.attemptLog.length === 0
        ? html`<p>Not attempted yet.</p>`
        : html`<table>
            <caption class="visually-hidden">Attempts of this delivery</caption>
            <thead><tr><th scope="col">Attempt</th><th scope="col">When</th><th scope="col">Answer</th><th scope="col">Took</th></tr></thead>
            <tbody>${d.attemptLog.map(
              (a) =>
                html`<tr><td>${a.attempt}</td><td>${when(a.at)}</td><td>${a.statusCode !== null ? `HTTP ${a.statusCode}` : 'no answer'}${a.error ? html` · ${a.error}` : ''}</td><td>${Math.round(a.durationMs)} ms</td></tr>`,
            )}</tbody>
          </table>`
    }
    <form method="post" action="/dashboard/webhooks/${endpointId}/deliveries/${d.id}/resend">${csrfInput(csrf)}<button type="submit">Resend now</button></form>
  </section>`;
}
