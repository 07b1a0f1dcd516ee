// Batches: the account's batches with a form to submit one (a CSV file chosen or dropped, read by
// the page's script and sent as text; or the CSV pasted into a plain form), and the first bad rows of
// a refused batch with a button to run the valid ones anyway. One batch's page is batch-page.ts.
import type { BatchView } from '../batches/index.js';
import { MAX_BATCH_ROWS } from '../batches/index.js';
import { fmt, stateLabel } from './batches-chart.js';
import { html, type Html } from '../html.js';
import { csrfInput, notice, timeTag } from './layout.js';

/** Why a batch was not queued: the message, and the first rows at fault when rows were. */
export interface UploadProblem {
  message: string;
  rows?: { position: number; error: string }[];
  invalid?: number;
  total?: number;
}

const STATE_BADGE: Record<BatchView['state'], string> = { queued: '', running: 'warn', done: 'ok', canceled: 'bad' };
const badge = (batch: BatchView): Html =>
  html`<span class="badge ${STATE_BADGE[batch.state]}">${stateLabel(batch).toLowerCase()}</span>`;
const megabytes = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

/** The refusal, inside the upload form: its "run the valid rows" button is a submit button of that form. */
export function uploadProblem(p: UploadProblem): Html {
  const valid = p.invalid !== undefined && p.total !== undefined ? p.total - p.invalid : 0;
  const more = p.rows && p.invalid !== undefined && p.invalid > p.rows.length ? p.invalid - p.rows.length : 0;
  return html`<div class="notice bad" role="alert" id="upload-error">
    <p><strong>${p.message}</strong></p>
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
      valid > 0
        ? html`<p>Correct the file and send it again, or run the valid rows now: the invalid ones are listed in the results and cost nothing.</p>
          <p><button type="submit" name="skipInvalid" value="1">Run the ${fmt(valid)} valid ${valid === 1 ? 'row' : 'rows'}, skip ${fmt(p.invalid!)}</button></p>`
        : ''
    }
  </div>`;
}

export function batchesPage(o: {
  csrf: string;
  batches: BatchView[];
  older: string | null;
  paged: boolean;
  remaining: number | null;
  maxBytes: number;
  csv?: string;
  problem?: UploadProblem;
  error?: string;
}): Html {
  const cost =
    o.remaining === null
      ? 'Each valid row is a lookup of the flight status endpoint (this account is not counted against an allowance).'
      : `Each valid row takes one credit as it runs, like a request to the API (${fmt(o.remaining)} left in this window); a batch with a mistake is not queued and costs nothing.`;
  return html`<h1>Batches</h1>
    <p>Check many flights at once: a CSV with a header row naming <code>flightNumber</code> and <code>flightDate</code> (YYYY-MM-DD), and optionally <code>origin</code>, <code>destination</code> and <code>reference</code> (yours, kept with each row), then one row per flight; up to ${fmt(MAX_BATCH_ROWS)} rows and ${megabytes(o.maxBytes)}. Other columns are ignored. The batch runs in the background; rows asking the same question are looked up once.</p>
    <p id="batch-cost">${cost}</p>
    <h2 id="upload-heading">New batch</h2>
    <form method="post" action="/dashboard/batches" id="batch-form" data-upload="/dashboard/batches/upload" data-max-bytes="${o.maxBytes}" novalidate aria-labelledby="upload-heading" aria-describedby="batch-cost">
      ${csrfInput(o.csrf)}
      <div id="upload-problem">${o.problem ? uploadProblem(o.problem) : ''}</div>
      <div class="dropzone" id="dropzone" hidden>
        <label for="batch-file">CSV file</label>
        <p class="hint" id="batch-file-hint">Choose a file, or drop it here. It is read in your browser and sent as text.</p>
        <input type="file" id="batch-file" accept=".csv,text/csv" aria-describedby="batch-file-hint">
        <p class="hint" id="batch-file-chosen" aria-live="polite"></p>
      </div>
      <label for="f-csv">CSV text</label>
      <p class="hint" id="f-csv-hint">Or paste the rows here, header first, e.g. <code>flightNumber,flightDate,reference</code> then <code>W63101,2026-02-20,claim-1</code>. A file chosen above is sent instead.</p>
      <textarea id="f-csv" name="csv" rows="8" spellcheck="false" aria-describedby="f-csv-hint">${o.csv ?? ''}</textarea>
      <p class="actions"><button type="submit" id="batch-submit">Check and run</button><span class="hint" id="batch-sending" aria-live="polite"></span></p>
    </form>
    <h2 id="list-heading">Your batches</h2>
    ${o.error ? notice('bad', o.error) : ''}
    ${
      o.batches.length === 0
        ? html`<p>${o.paged ? 'No older batches.' : 'No batches yet.'}</p>`
        : html`<div class="scroll" role="region" aria-labelledby="list-heading" tabindex="0"><table>
            <thead><tr><th scope="col">Batch</th><th scope="col">Submitted</th><th scope="col">State</th><th scope="col">Rows</th><th scope="col">Finished</th><th scope="col">Credits</th></tr></thead>
            <tbody>${o.batches.map(
              (b) =>
                html`<tr><td><a href="/dashboard/batches/${b.id}"><code>${b.id}</code></a></td><td>${timeTag(b.createdAt)}</td><td>${badge(b)}</td><td>${fmt(b.rows)}</td><td>${b.progress.percent}%</td><td>${fmt(b.credits)}</td></tr>`,
            )}</tbody>
          </table></div>`
    }
    <p class="actions">${o.paged ? html`<a href="/dashboard/batches">Newest</a>` : ''}${o.older ? html`<a href="/dashboard/batches?after=${o.older}">Older batches</a>` : ''}</p>
    <p class="hint">Finished batches and their results are kept until the date on their page. The same batches are on the API at <code>/api/v1/batches</code> (<a href="/docs">API docs</a>).</p>`;
}
