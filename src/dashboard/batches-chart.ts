// A batch's rows by outcome as a small chart, and the progress the batch page's script polls for.
// The chart is inline SVG like the overview's (no chart library): one horizontal bar per outcome,
// its label and count as text beside it, so that it reads on a phone as on a desktop; each bar is
// drawn against the batch's rows, so the bars grow as the batch runs. The script (batches-script.ts)
// updates the same elements from the progress JSON: the numbers come from one place, here.
import type { BatchView } from '../batches/index.js';
import { html, type Html } from '../html.js';

export const CHART = [
  { key: 'on_time', label: 'On time', color: '#1a7f37' },
  { key: 'delayed', label: 'Delayed', color: '#b35900' },
  { key: 'cancelled', label: 'Cancelled', color: '#b3261e' },
  { key: 'diverted', label: 'Diverted', color: '#6639ba' },
  { key: 'not_found', label: 'Not found', color: '#4b5563' },
  { key: 'error', label: 'No answer', color: '#8a1c1c' },
  { key: 'invalid', label: 'Invalid', color: '#6e7781' },
  { key: 'refused', label: 'Refused', color: '#6e7781' },
  { key: 'canceled', label: 'Canceled', color: '#6e7781' },
] as const;
export type ChartKey = (typeof CHART)[number]['key'];

const STATE_LABEL: Record<BatchView['state'], string> = {
  queued: 'Queued',
  running: 'Running',
  done: 'Done',
  canceled: 'Canceled',
};

export const fmt = (n: number): string => n.toLocaleString('en-US');
export const ended = (batch: BatchView): boolean => batch.state === 'done' || batch.state === 'canceled';
export const stateLabel = (batch: BatchView): string => STATE_LABEL[batch.state];

/** Rows by outcome once answered, and the rows that were not run (invalid, refused, canceled). */
export function chartCounts(batch: BatchView): Record<ChartKey, number> {
  const { byOutcome, byState } = batch.counts;
  return { ...byOutcome, invalid: byState.invalid, refused: byState.refused, canceled: byState.canceled };
}

/** What the progress bar says in words. */
export const progressText = (batch: BatchView): string =>
  `${fmt(batch.progress.finished)} of ${fmt(batch.rows)} rows finished (${batch.progress.percent}%)`;

function summary(counts: Record<ChartKey, number>): string {
  const shown = CHART.filter((c) => counts[c.key] > 0).map((c) => `${fmt(counts[c.key])} ${c.label.toLowerCase()}`);
  return shown.length === 0 ? 'No row has finished yet.' : `${shown.join(', ')}.`;
}

const when = (iso: string | null): string => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '—');

/** The answer of GET /dashboard/batches/{id}/progress: each field fills the element of the same `data-field`. */
export interface Progress {
  state: BatchView['state'];
  ended: boolean;
  stateLabel: string;
  percent: number;
  finished: number;
  total: number;
  progressText: string;
  credits: string;
  providerCalls: string;
  estimate: string;
  summary: string;
  counts: Record<ChartKey, number>;
}

export function progressOf(batch: BatchView): Progress {
  const counts = chartCounts(batch);
  return {
    state: batch.state,
    ended: ended(batch),
    stateLabel: stateLabel(batch),
    percent: batch.progress.percent,
    finished: batch.progress.finished,
    total: batch.rows,
    progressText: progressText(batch),
    credits: fmt(batch.credits),
    providerCalls: fmt(batch.providerCalls.made),
    estimate: ended(batch) ? when(batch.finishedAt) : when(batch.estimatedFinishAt),
    summary: summary(counts),
    counts,
  };
}

// The drawing's units: on a phone's 340 px it is drawn a little larger than its units, so its 14-unit
// words read at about 15 px; on a desktop, at most 24rem wide, at about 17 px.
const WIDTH = 320;
const BAR_START = 92;
/** The widest bar: every row of the batch, leaving room for the count after it. */
export const BAR_FULL = WIDTH - BAR_START - 52;
const ROW = 24;

/** The bar of `n` rows out of `total`: at least 2 units when there are any, so one row in 10,000 shows. */
export function barWidth(n: number, total: number): string {
  if (n <= 0 || total <= 0) return '0';
  return Math.max(2, (n / total) * BAR_FULL).toFixed(1);
}

export function countsChart(batch: BatchView): Html {
  const counts = chartCounts(batch);
  const height = CHART.length * ROW;
  const bars = CHART.map((c, i) => {
    const y = i * ROW;
    const width = barWidth(counts[c.key], batch.rows);
    return html`<text x="0" y="${y + 16}" font-size="14" fill="#1b1f24">${c.label}</text>
      <rect x="${BAR_START}" y="${y + 4}" width="${width}" height="16" fill="${c.color}" data-bar="${c.key}" data-full="${BAR_FULL}"></rect>
      <text x="${(BAR_START + Number(width) + 4).toFixed(1)}" y="${y + 16}" font-size="14" fill="#1b1f24" data-count="${c.key}">${fmt(counts[c.key])}</text>`;
  });
  return html`<figure class="chart bars" tabindex="0">
      <svg viewBox="0 0 ${WIDTH} ${height}" role="img" aria-labelledby="counts-heading counts-summary">
        <line x1="${BAR_START}" y1="0" x2="${BAR_START}" y2="${height}" stroke="#6b7280"/>
        ${bars}
      </svg>
      <figcaption id="counts-summary" data-field="summary">${summary(counts)}</figcaption>
    </figure>
    <details><summary>Show as a table</summary>
      <table><caption class="visually-hidden">Rows by outcome</caption>
        <thead><tr><th scope="col">Outcome</th><th scope="col">Rows</th></tr></thead>
        <tbody>${CHART.map((c) => html`<tr><td>${c.label}</td><td data-count="${c.key}">${fmt(counts[c.key])}</td></tr>`)}</tbody>
      </table>
    </details>`;
}
