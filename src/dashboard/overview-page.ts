// The overview: the credit position of the current window and metered requests per day over the last
// 30 days by outcome, drawn as inline SVG (no chart library, no script) with the same numbers as a table.
import type { AccountView } from '../accounts/index.js';
import type { DailyUsage } from '../metering/index.js';
import type { PlanSummary } from '../accounts/index.js';
import { statusBanner } from './billing-page.js';
import { html, type Html } from '../html.js';

export const CHART_DAYS = 30;
const OUTCOMES = [
  { key: 'answered', label: 'Answered (2xx)', color: '#1a7f37' },
  { key: 'client', label: 'Client errors (4xx)', color: '#b35900' },
  { key: 'failed', label: 'Not answered (5xx)', color: '#b3261e' },
  { key: 'refused', label: 'Refused, no credit taken (402, 403, 429)', color: '#5b5f66' },
] as const;
type Outcome = (typeof OUTCOMES)[number]['key'];

export interface DayBar {
  date: string;
  counts: Record<Outcome, number>;
}

/** One bar per UTC day from `firstDay` (ms), zeros where nothing was metered or refused. */
export function dayBars(usage: DailyUsage[], refused: Map<string, number>, firstDay: number): DayBar[] {
  const byDate = new Map(usage.map((d) => [d.date, d]));
  return Array.from({ length: CHART_DAYS }, (_, i) => {
    const date = new Date(firstDay + i * 86_400_000).toISOString().slice(0, 10);
    const counts: Record<Outcome, number> = { answered: 0, client: 0, failed: 0, refused: refused.get(date) ?? 0 };
    for (const [status, n] of Object.entries(byDate.get(date)?.byStatus ?? {})) {
      const code = Number(status);
      counts[code < 400 ? 'answered' : code < 500 ? 'client' : 'failed'] += n;
    }
    return { date, counts };
  });
}

const fmt = (n: number) => n.toLocaleString('en-US');
const sumOf = (bar: DayBar) => bar.counts.answered + bar.counts.client + bar.counts.failed + bar.counts.refused;

/** `plan`: the catalogue plan of the current window (null on a custom allowance or none). */
export function overviewPage(
  account: AccountView,
  bars: DayBar[],
  o: { plan?: PlanSummary | null; notice?: Html } = {},
): Html {
  const c = account.credits;
  const planName = account.unlimited
    ? 'Unlimited'
    : (o.plan?.name ?? (account.subscription.plan ? 'Custom allowance' : 'None'));
  const position = c
    ? html`<dl class="stats">
        <div><dt>Included</dt><dd>${fmt(c.included)}</dd></div>
        <div><dt>Used</dt><dd>${fmt(c.used)}</dd></div>
        <div><dt>Remaining</dt><dd>${fmt(c.remaining)}</dd></div>
        <div><dt>Overage</dt><dd>${fmt(c.overage)}</dd></div>
        <div><dt>Window ends</dt><dd><time datetime="${c.periodEnd}">${c.periodEnd.slice(0, 10)}</time></dd></div>
      </dl>
      <p class="hint">Each request to the flight status endpoint takes one credit. ${
        account.subscription.plan?.overage
          ? 'Requests past the allowance are billed as overage.'
          : 'Past the allowance, requests are refused until the window ends.'
      }</p>`
    : html`<p>This account is unlimited: its requests are not counted against an allowance.</p>`;
  const total = bars.reduce((sum, b) => sum + sumOf(b), 0);
  return html`<h1>${account.name}</h1>
    ${statusBanner(account, true)}
    ${o.notice ?? ''}
    <p id="plan-name">Plan: <strong>${planName}</strong> · <a href="/dashboard/billing">Plan and invoices</a></p>
    <h2>Credits this window</h2>
    ${position}
    <h2 id="usage-heading">Metered requests, last ${CHART_DAYS} days</h2>
    ${total === 0 ? html`<p>No metered requests in the last ${CHART_DAYS} days. <a href="/dashboard/keys">Create an API key</a> and call <code>/api/v1/flights/status</code>, or <a href="/dashboard/lookup">look up a flight</a> here.</p>` : chart(bars)}`;
}

function chart(bars: DayBar[]): Html {
  const width = 600;
  const height = 160;
  const max = Math.max(1, ...bars.map(sumOf));
  const step = width / bars.length;
  const rects = bars.map((bar, i) => {
    let y = height;
    return OUTCOMES.map((o) => {
      const n = bar.counts[o.key];
      if (n === 0) return '';
      const h = (n / max) * (height - 10);
      y -= h;
      return html`<rect x="${(i * step + 1).toFixed(1)}" y="${y.toFixed(1)}" width="${(step - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="${o.color}"><title>${bar.date}: ${fmt(n)} ${o.label.toLowerCase()}</title></rect>`;
    });
  });
  const of = (key: Outcome) => fmt(bars.reduce((s, b) => s + b.counts[key], 0));
  const summary = `${of('answered')} answered, ${of('client')} client errors, ${of('failed')} not answered, ${of('refused')} refused`;
  return html`<figure class="chart" tabindex="0">
      <svg viewBox="0 0 ${width} ${height + 16}" role="img" aria-labelledby="usage-heading usage-summary">
        ${rects}
        <line x1="0" y1="${height}" x2="${width}" y2="${height}" stroke="#6b7280"/>
        <text x="0" y="${height + 14}" font-size="11" fill="#4b5563">${bars[0]!.date}</text>
        <text x="${width}" y="${height + 14}" font-size="11" fill="#4b5563" text-anchor="end">${bars[bars.length - 1]!.date}</text>
        <text x="0" y="10" font-size="11" fill="#4b5563">${fmt(max)} a day</text>
      </svg>
      <figcaption id="usage-summary">${summary}.</figcaption>
    </figure>
    <ul class="legend">${OUTCOMES.map((o) => html`<li><span style="background:${o.color}"></span>${o.label}</li>`)}</ul>
    <details><summary>Show as a table</summary>
      <table><caption class="visually-hidden">Metered requests per day</caption>
        <thead><tr><th scope="col">Day (UTC)</th>${OUTCOMES.map((o) => html`<th scope="col">${o.label}</th>`)}</tr></thead>
        <tbody>${bars
          .filter((b) => sumOf(b) > 0)
          .map(
            (b) => html`<tr><td>${b.date}</td>${OUTCOMES.map((o) => html`<td>${fmt(b.counts[o.key])}</td>`)}</tr>`,
          )}</tbody>
      </table>
    </details>`;
}
