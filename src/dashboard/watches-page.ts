// Watches: a form that creates watches from a CSV (a file chosen or dropped, read by the page's
// script and sent as text; or the rows pasted into a plain form) for the endpoints ticked, every
// problem named beside its input; and the account's watches, filtered by state and reference, paged
// as the API pages them, each active one with a Stop button. One watch's page is watch-page.ts.
import type { WebhookView } from '../webhooks/index.js';
import type { WatchView } from '../watches/index.js';
import { MAX_ACTIVE_WATCHES, MAX_WATCHES_PER_REQUEST, WATCH_STATES } from '../watches/index.js';
import { html, type Html } from '../html.js';
import { csrfInput, notice, timeTag } from './layout.js';

/** Why no watch was created: every problem in words, and those of one input beside it. */
export interface WatchProblem {
  /** Each problem, a sentence (the API's words for rows and endpoints). */
  messages: string[];
  /** The problem of the endpoints ticked (none, or not the account's). */
  endpoints?: string;
  /** The problem of the CSV as a whole (empty, unreadable, too large). */
  csv?: string;
  /** The first invalid rows, as the API names them. */
  rows?: { position: number; error: string }[];
  invalid?: number;
  total?: number;
}

/** The list's filter as asked (a bad value is named, and not applied). */
export interface WatchFilter {
  state: string;
  reference: string;
}

const fmt = (n: number): string => n.toLocaleString('en-US');
const STATE_BADGE: Record<WatchView['state'], string> = { active: 'ok', stopped: '', ended: 'warn' };
export const stateBadge = (state: WatchView['state']): Html =>
  html`<span class="badge ${STATE_BADGE[state]}">${state}</span>`;
/** The flight as a person reads it: designator, and the route when it was given. */
export const flightOf = (w: WatchView): string =>
  `${w.flightNumber}${w.origin || w.destination ? ` ${w.origin ?? '…'} → ${w.destination ?? '…'}` : ''}`;
const megabytes = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

/** The refusal, inside the form: its "create the valid watches" button is a submit button of that form. */
export function watchProblem(p: WatchProblem): Html {
  const valid = p.invalid !== undefined && p.total !== undefined ? p.total - p.invalid : 0;
  const more = p.rows && p.invalid !== undefined && p.invalid > p.rows.length ? p.invalid - p.rows.length : 0;
  return html`<div class="notice bad" role="alert" id="upload-error">
    <p><strong>No watch was created and no credit was taken.</strong></p>
    <ul>${p.messages.map((m) => html`<li>${m}</li>`)}</ul>
    ${
      p.rows && p.rows.length > 0
        ? html`<table><caption>The first invalid rows (row 1 is the first row under the header)</caption>
            <thead><tr><th scope="col">Row</th><th scope="col">What is wrong</th></tr></thead>
            <tbody>${p.rows.map((r) => html`<tr><td>${fmt(r.position)}</td><td>${r.error}</td></tr>`)}</tbody>
          </table>
          ${more > 0 ? html`<p>And ${fmt(more)} more.</p>` : ''}`
        : ''
    }
    ${
      valid > 0 && !p.endpoints
        ? html`<p>Correct the rows and send them again, or create the valid ones now: the invalid rows cost nothing.</p>
          <p><button type="submit" name="skipInvalid" value="1">Create the ${fmt(valid)} valid ${valid === 1 ? 'watch' : 'watches'}, skip ${fmt(p.invalid!)}</button></p>`
        : ''
    }
  </div>`;
}

function endpointChoice(endpoints: WebhookView[], chosen: Set<string>, error: string | undefined): Html {
  if (endpoints.length === 0) {
    return html`<fieldset aria-describedby="endpoints-hint${error ? ' endpoints-error' : ''}"><legend>Send to</legend>
      <p class="hint" id="endpoints-hint">This account has no webhook endpoints yet: a watch sends its events to endpoints of the account. <a href="/dashboard/webhooks">Add one on the Webhooks page</a> first.</p>
      ${error ? html`<p class="error" id="endpoints-error">${error}</p>` : ''}
    </fieldset>`;
  }
  return html`<fieldset aria-describedby="endpoints-hint${error ? ' endpoints-error' : ''}"${error ? html` aria-invalid="true"` : ''}><legend>Send to</legend>
    <p class="hint" id="endpoints-hint">The webhook endpoints that receive the events of every watch created. At least one.</p>
    ${error ? html`<p class="error" id="endpoints-error">${error}</p>` : ''}
    <ul class="airports">${endpoints.map(
      (e) =>
        html`<li><input type="checkbox" name="endpoints" value="${e.id}" id="ep-${e.id}"${chosen.has(e.id) ? html` checked` : ''}> <label for="ep-${e.id}">${e.name}${e.enabled ? '' : ' (disabled)'}</label></li>`,
    )}</ul>
  </fieldset>`;
}

export function watchesPage(o: {
  csrf: string;
  endpoints: WebhookView[];
  watches: WatchView[];
  filter: WatchFilter;
  older: string | null;
  paged: boolean;
  remaining: number | null;
  maxBytes: number;
  csv?: string;
  chosen?: string[];
  problem?: WatchProblem;
  done?: Html;
  error?: string;
}): Html {
  const names = new Map(o.endpoints.map((e) => [e.id, e.name]));
  const chosen = new Set(o.chosen ?? (o.endpoints.length === 1 ? [o.endpoints[0]!.id] : []));
  const cost =
    o.remaining === null
      ? ', as a lookup costs (this account is not counted against an allowance).'
      : `, as a lookup costs, taken when it is created (${fmt(o.remaining)} left in this window). A watch already active is returned, not charged again; a request with a mistake creates nothing and costs nothing; events are never charged.`;
  const filtered = o.filter.state !== '' || o.filter.reference !== '';
  const query = (after?: string) =>
    new URLSearchParams({
      ...(o.filter.state ? { state: o.filter.state } : {}),
      ...(o.filter.reference ? { reference: o.filter.reference } : {}),
      ...(after ? { after } : {}),
    }).toString();
  return html`<h1>Watches</h1>
    <p>Follow single flights for your webhook endpoints: a travel app’s bookings, an insurer’s policies. A CSV with a header row naming <code>flightNumber</code> and <code>flightDate</code> (YYYY-MM-DD), and optionally <code>origin</code>, <code>destination</code> and <code>reference</code> (yours), then one row per flight, as a batch takes them; up to ${fmt(MAX_WATCHES_PER_REQUEST)} rows and ${megabytes(o.maxBytes)}, and ${fmt(MAX_ACTIVE_WATCHES)} active watches per account.</p>
    <p id="watch-cost"><strong>1 credit per watch created</strong>${cost}</p>
    <p class="hint">Each watch’s flight events are signed and sent to its endpoints as the service observes them, on the boards it polls or by asking the flight providers, and end with flight.settled once the flight’s record is complete (<a href="/docs">API docs</a>).</p>
    <h2 id="create-heading">New watches</h2>
    ${o.done ?? ''}
    <form method="post" action="/dashboard/watches" id="watch-form" data-upload="/dashboard/watches/upload" data-upload-list="endpoints" data-prefix="watch" data-max-bytes="${o.maxBytes}" novalidate aria-labelledby="create-heading" aria-describedby="watch-cost">
      ${csrfInput(o.csrf)}
      <div id="upload-problem">${o.problem ? watchProblem(o.problem) : ''}</div>
      ${endpointChoice(o.endpoints, chosen, o.problem?.endpoints)}
      <div class="dropzone" id="dropzone" hidden>
        <label for="watch-file">CSV file</label>
        <p class="hint" id="watch-file-hint">Choose a file, or drop it here. It is read in your browser and sent as text.</p>
        <input type="file" id="watch-file" accept=".csv,text/csv" aria-describedby="watch-file-hint">
        <p class="hint" id="watch-file-chosen" aria-live="polite"></p>
      </div>
      <label for="f-csv">CSV text</label>
      <p class="hint" id="f-csv-hint">Or paste the rows here, header first, e.g. <code>flightNumber,flightDate,reference</code> then <code>W63101,2026-02-20,policy-1</code>. A file chosen above is sent instead.</p>
      ${o.problem?.csv ? html`<p class="error" id="f-csv-error">${o.problem.csv}</p>` : ''}
      <textarea id="f-csv" name="csv" rows="6" spellcheck="false" aria-describedby="f-csv-hint${o.problem?.csv ? ' f-csv-error' : ''}"${o.problem?.csv ? html` aria-invalid="true"` : ''}>${o.csv ?? ''}</textarea>
      <p class="actions"><button type="submit" id="watch-submit">Create watches</button><span class="hint" id="watch-sending" aria-live="polite"></span></p>
    </form>
    <h2 id="list-heading">Your watches</h2>
    <form method="get" action="/dashboard/watches" aria-label="Filter the watches" class="filter-fields">
      <p><label for="f-state">State</label><select id="f-state" name="state">
        <option value=""${o.filter.state === '' ? html` selected` : ''}>all</option>
        ${WATCH_STATES.map((s) => html`<option value="${s}"${o.filter.state === s ? html` selected` : ''}>${s}</option>`)}
      </select></p>
      <p><label for="f-reference">Reference</label><input type="search" id="f-reference" name="reference" value="${o.filter.reference}" maxlength="200" aria-describedby="f-reference-hint"><span class="hint" id="f-reference-hint">The reference exactly as given.</span></p>
      <p class="actions"><button type="submit" class="secondary">Show</button>${filtered ? html`<a href="/dashboard/watches">All watches</a>` : ''}</p>
    </form>
    ${o.error ? notice('bad', o.error) : ''}
    ${
      o.watches.length === 0
        ? html`<p id="no-watches">${o.paged ? 'No older watches.' : filtered ? 'No watches match.' : 'No watches yet.'}</p>`
        : html`<div class="scroll" role="region" aria-labelledby="list-heading" tabindex="0"><table class="results" id="watches">
            <thead><tr><th scope="col">Flight</th><th scope="col">Date</th><th scope="col">Reference</th><th scope="col">State</th><th scope="col">Endpoints</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
            <tbody>${o.watches.map(
              (w) =>
                html`<tr><td class="nw"><a href="/dashboard/watches/${w.id}">${flightOf(w)}</a></td><td class="nw">${w.flightDate}${w.dateBasis === 'local' ? ' (local)' : ''}</td><td class="ref">${w.reference ?? '—'}</td><td>${stateBadge(w.state)}</td><td class="ref">${w.endpoints
                  .map((id) => names.get(id) ?? id)
                  .sort()
                  .join(', ')}</td><td>${timeTag(w.createdAt)}</td><td>${
                  w.state === 'active'
                    ? html`<form method="post" action="/dashboard/watches/${w.id}/stop" class="inline" data-confirm="Stop watching ${w.flightNumber} on ${w.flightDate}? It sends nothing more; watching it again costs a credit.">${csrfInput(o.csrf)}<button type="submit" class="danger" aria-label="Stop the watch of ${w.flightNumber} on ${w.flightDate}${w.reference ? ` (${w.reference})` : ''}">Stop</button></form>`
                    : ''
                }</td></tr>`,
            )}</tbody>
          </table></div>`
    }
    <p class="actions">${o.paged ? html`<a href="/dashboard/watches${filtered ? `?${query()}` : ''}">Newest</a>` : ''}${o.older ? html`<a href="/dashboard/watches?${query(o.older)}">Older watches</a>` : ''}</p>
    <p class="hint">The same watches are on the API at <code>/api/v1/watches</code> (<a href="/docs">API docs</a>).</p>`;
}
