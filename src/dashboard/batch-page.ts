// One batch's page: its progress (kept moving by the script, batches-script.ts), its rows by outcome
// as a chart, and its results with filters, pages and a CSV download.
import type { BatchView, ResultRow } from '../batches/index.js';
import { countsChart, ended, fmt, progressText, stateLabel } from './batches-chart.js';
import { html, type Html } from '../html.js';
import { csrfInput, notice, timeTag } from './layout.js';

/** The result filters of the batch page: the service's, and all rows. */
export const FILTERS = [
  { only: '', label: 'All rows' },
  { only: 'disrupted', label: 'Disrupted only' },
  { only: 'owed', label: 'Compensation owed' },
  { only: 'owed_not_at_risk', label: '…and not at risk' },
] as const;
export type Filter = (typeof FILTERS)[number]['only'];

const OUTCOME_LABEL: Record<string, string> = {
  on_time: 'on time',
  delayed: 'delayed',
  cancelled: 'cancelled',
  diverted: 'diverted',
  not_found: 'not found',
  error: 'no answer',
};
const STATE_WORDS: Record<string, string> = {
  pending: 'waiting',
  refused: 'refused',
  invalid: 'invalid',
  canceled: 'canceled',
};

/** The dashboard's door to a row's evidence PDF: its query, with the page's CSRF token (it takes a credit). */
function evidenceCell(r: ResultRow, csrf: string): Html {
  if (!r.evidenceUrl) return html`<td></td>`;
  const query = new URLSearchParams(r.evidenceUrl.slice(r.evidenceUrl.indexOf('?') + 1));
  query.set('_csrf', csrf);
  return html`<td class="nw"><a href="/dashboard/evidence?${query.toString()}" title="The signed evidence PDF of this flight (one credit)">PDF</a></td>`;
}

/**
 * The circumstances' assessment, after whether the amount owed is at risk on it (a badge, only for a
 * row owed compensation with circumstances); or why the row has no answer. One cell, so that the
 * table keeps its width.
 */
function assessmentCell(r: ResultRow): Html {
  if (r.error) return html`<td class="note">${r.error}</td>`;
  const risk =
    r.amountAtRisk === null
      ? r.compensationOwed === true && r.assessment === 'unknown'
        ? html`<span class="badge" data-risk="unknown">not checked</span> `
        : ''
      : r.amountAtRisk
        ? html`<span class="badge warn" data-risk="yes">at risk</span> `
        : html`<span class="badge ok" data-risk="no">not at risk</span> `;
  return html`<td class="note">${risk}${r.assessment ? r.assessment.replace(/_/g, ' ') : ''}</td>`;
}

function resultCells(r: ResultRow, csrf: string): Html {
  const result =
    r.state === 'done' ? (OUTCOME_LABEL[r.outcome ?? ''] ?? r.outcome ?? '') : (STATE_WORDS[r.state] ?? r.state);
  const route = r.origin || r.destination ? `${r.origin ?? '?'} → ${r.destination ?? '?'}` : '';
  const money = (amount: number | null, unit: string) => (amount === null ? '—' : `${unit}${fmt(amount)}`);
  return html`<td class="nw">${fmt(r.row)}</td><td class="ref">${r.reference ?? ''}</td><td class="nw">${r.flightNumber ?? ''}</td><td class="nw">${r.flightDate ?? ''}</td><td class="nw">${route}</td><td class="nw">${result}</td><td class="nw">${
    r.delayMinutes === null ? '—' : `${fmt(Math.round(r.delayMinutes))} min`
  }</td><td>${r.verdict ? r.verdict.replace(/_/g, ' ') : '—'}</td><td class="nw">${money(r.eu261AmountEur, '€')}</td><td class="nw">${money(r.uk261AmountGbp, '£')}</td>${assessmentCell(r)}${evidenceCell(r, csrf)}`;
}

function live(csrf: string, batch: BatchView, done: Html | undefined): Html {
  const running = !ended(batch);
  const pct = batch.progress.percent;
  return html`<section id="batch-live" aria-labelledby="progress-heading"${running ? html` data-batch-poll="/dashboard/batches/${batch.id}/progress"` : ''}>
    ${done ?? ''}
    <p>Submitted ${timeTag(batch.createdAt)} as ${batch.format.toUpperCase()}${batch.expiresAt ? html` · kept until ${timeTag(batch.expiresAt)}` : ''}</p>
    <h2 id="progress-heading">Progress</h2>
    <p id="batch-state" aria-live="polite">State: <strong data-field="stateLabel">${stateLabel(batch)}</strong></p>
    ${running ? html`<p class="hint">This page follows the batch while it runs (without scripts, reload it to see how far it got).</p>` : ''}
    <p><span id="progress-label">Rows finished</span>: <progress id="batch-progress" max="100" value="${pct}" aria-labelledby="progress-label" aria-describedby="progress-text">${pct}%</progress>
      <span id="progress-text" data-field="progressText">${progressText(batch)}</span></p>
    <dl class="stats">
      <div><dt>Rows</dt><dd>${fmt(batch.rows)}</dd></div>
      <div><dt>Lookups</dt><dd>${fmt(batch.lookups)}</dd></div>
      <div><dt>Credits taken</dt><dd data-field="credits">${fmt(batch.credits)}</dd></div>
      <div><dt>Provider calls</dt><dd data-field="providerCalls">${fmt(batch.providerCalls.made)}</dd></div>
      <div><dt>${running ? 'Estimated finish' : 'Finished'}</dt><dd data-field="estimate">${timeTag(running ? batch.estimatedFinishAt : batch.finishedAt)}</dd></div>
    </dl>
    ${batch.stoppedReason ? notice('bad', html`Rows were refused: ${batch.stoppedReason}`) : ''}
    ${batch.ignoredColumns.length > 0 ? html`<p class="hint">Columns ignored: ${batch.ignoredColumns.join(', ')}.</p>` : ''}
    ${
      running
        ? html`<form method="post" action="/dashboard/batches/${batch.id}/cancel" data-confirm="Cancel this batch? Rows not yet run will not run and take no credit.">
            ${csrfInput(csrf)}
            <button type="submit" class="danger">Cancel batch</button>
          </form>`
        : ''
    }
    <h2 id="counts-heading">Rows by outcome</h2>
    ${countsChart(batch)}
    <p class="hint">Invalid: rows that could not be read (they cost nothing). Refused: not run because the allowance ran out or the account could not be charged (no credit taken). Canceled: not run because the batch was canceled.</p>
  </section>`;
}

export function batchPage(o: {
  csrf: string;
  batch: BatchView;
  results: ResultRow[];
  filter: Filter;
  after: number;
  nextAfter: number | null;
  done?: Html;
  error?: string;
}): Html {
  const { batch } = o;
  const base = `/dashboard/batches/${batch.id}`;
  const only = o.filter ? `only=${o.filter}` : '';
  const download = `${base}/results.csv`;
  return html`<p><a href="/dashboard/batches">← All batches</a></p>
    <h1>Batch <code>${batch.id}</code></h1>
    ${live(o.csrf, batch, o.done)}
    <section id="batch-results" aria-labelledby="results-heading">
      <h2 id="results-heading">Results</h2>
      ${o.error ? notice('bad', o.error) : ''}
      <nav aria-label="Filter the results"><ul class="filters">${FILTERS.map(
        (f) =>
          html`<li><a href="${base}${f.only ? `?only=${f.only}` : ''}"${f.only === o.filter ? html` aria-current="page"` : ''}>${f.label}</a></li>`,
      )}</ul></nav>
      <p class="actions"><a class="button" href="${download}" download>Download results CSV</a>${
        o.filter ? html`<a href="${download}?${only}" download>Download these rows only</a>` : ''
      }</p>
      ${
        o.results.length === 0
          ? html`<p>${o.filter ? 'No rows match this filter yet.' : 'No results yet.'}</p>`
          : html`<div class="scroll" role="region" aria-labelledby="results-heading" tabindex="0"><table id="results" class="results">
              <thead><tr><th scope="col">Row</th><th scope="col">Reference</th><th scope="col">Flight</th><th scope="col">Date</th><th scope="col">Route</th><th scope="col">Result</th><th scope="col">Delay</th><th scope="col">Verdict</th><th scope="col">EU261</th><th scope="col">UK261</th><th scope="col">Circumstances or problem</th><th scope="col">Evidence</th></tr></thead>
              <tbody>${o.results.map((r) => html`<tr>${resultCells(r, o.csrf)}</tr>`)}</tbody>
            </table></div>`
      }
      <p class="actions">${o.after > 0 ? html`<a href="${base}${only ? `?${only}` : ''}">First rows</a>` : ''}${
        o.nextAfter !== null ? html`<a href="${base}?${only ? `${only}&` : ''}after=${o.nextAfter}">Next rows</a>` : ''
      }</p>
    </section>`;
}
