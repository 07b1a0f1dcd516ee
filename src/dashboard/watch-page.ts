// One watch's page: its fields, the endpoints it sends to, the flight as the service already holds it
// (the lookup's answer, replayed from a settled record; "nothing known yet" otherwise), its events
// with their deliveries to the watch's endpoints, and a Stop button while it is active.
import type { WebhookView } from '../webhooks/index.js';
import type { WatchDetail } from '../watches/index.js';
import { html, type Html } from '../html.js';
import { csrfInput, timeTag } from './layout.js';
import { result } from './lookup-result.js';
import { flightOf, stateBadge } from './watches-page.js';

/** The dashboard's door to the flight's evidence PDF (one credit), with the page's CSRF token. */
function evidenceLink(w: WatchDetail, csrf: string): string {
  const query = new URLSearchParams({ flightNumber: w.flightNumber, flightDate: w.flightDate });
  if (w.dateBasis === 'local') query.set('dateBasis', 'local');
  if (w.origin) query.set('origin', w.origin);
  if (w.destination) query.set('destination', w.destination);
  query.set('_csrf', csrf);
  return `/dashboard/evidence?${query.toString()}`;
}

export function watchPage(o: { csrf: string; watch: WatchDetail; endpoints: WebhookView[]; done?: Html }): Html {
  const w = o.watch;
  const known = new Map(o.endpoints.map((e) => [e.id, e]));
  return html`<h1>Watch of ${w.flightNumber} on ${w.flightDate}</h1>
    ${o.done ?? ''}
    <table id="watch-fields"><tbody>
      <tr><th scope="row">Watch</th><td><code>${w.id}</code></td></tr>
      <tr><th scope="row">State</th><td id="watch-state">${stateBadge(w.state)}${w.endedReason ? ` (${w.endedReason})` : ''}</td></tr>
      <tr><th scope="row">Flight</th><td>${flightOf(w)}</td></tr>
      <tr><th scope="row">Date</th><td>${w.flightDate} (${w.dateBasis === 'local' ? 'local at the departure airport' : 'UTC'})</td></tr>
      <tr><th scope="row">Reference</th><td class="hash">${w.reference ?? '—'}</td></tr>
      <tr><th scope="row">Created</th><td>${timeTag(w.createdAt)}</td></tr>
      ${w.endedAt ? html`<tr><th scope="row">${w.state === 'stopped' ? 'Stopped' : 'Ended'}</th><td>${timeTag(w.endedAt)}</td></tr>` : ''}
    </tbody></table>
    ${
      w.state === 'active'
        ? html`<form method="post" action="/dashboard/watches/${w.id}/stop" data-confirm="Stop watching ${w.flightNumber} on ${w.flightDate}? It sends nothing more; watching it again costs a credit.">${csrfInput(o.csrf)}<p><button type="submit" class="danger">Stop watch</button></p></form>`
        : ''
    }
    <h2 id="endpoints-heading">Sends to</h2>
    <ul id="watch-endpoints">${w.endpoints.map((id) => {
      const e = known.get(id);
      return e
        ? html`<li><a href="/dashboard/webhooks/${e.id}">${e.name}</a> <code>${e.url}</code>${e.enabled ? '' : ' (disabled)'}</li>`
        : html`<li><code>${id}</code></li>`;
    })}</ul>
    <h2 id="flight-heading">The flight</h2>
    ${
      w.flight
        ? html`<p class="hint">As the service already holds it: the answer this watch ended on (what its flight.settled carried), or the settled record a lookup stored (no provider asked, no credit taken).</p>${result(w.flight, evidenceLink(w, o.csrf))}`
        : html`<p id="flight-unknown">Nothing known yet: the service holds no settled record of this flight. It is shown here once the watch ends with its flight.settled, usually within the hour of landing, or once a lookup settles a disrupted flight.</p>`
    }
    <h2 id="events-heading">Events</h2>
    ${
      w.events.length === 0
        ? html`<p id="no-events">No events yet. The flight’s events are listed here as the service observes them, on the boards it polls or by asking the flight providers, and sends them to the endpoints above.</p>`
        : html`<div class="scroll" role="region" aria-labelledby="events-heading" tabindex="0"><table id="watch-events" class="results">
          <thead><tr><th scope="col">Observed</th><th scope="col">Event</th><th scope="col">Deliveries</th></tr></thead>
          <tbody>${w.events.map(
            (e) =>
              html`<tr><td>${timeTag(e.createdAt)}</td><td><code>${e.type}</code></td><td>${
                e.deliveries.length === 0
                  ? '—'
                  : e.deliveries.map(
                      (d) =>
                        html`<div>${known.get(d.endpoint)?.name ?? d.endpoint}: ${d.state}${d.attempts > 0 ? `, ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}` : ''}${d.lastStatusCode !== null ? ` (HTTP ${d.lastStatusCode})` : ''}</div>`,
                    )
              }</td></tr>`,
          )}</tbody></table></div>`
    }
    <p class="hint"><a href="/dashboard/watches">All watches</a> · the same watch on the API: <code>GET /api/v1/watches/${w.id}</code></p>`;
}
