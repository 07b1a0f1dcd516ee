// `flightstatus batch …`: a client of the running service's public batch API (docs/batches.md), with
// an account's API key, as a claims handler runs it from a terminal or a script.
import { readFile, writeFile } from 'node:fs/promises';
import type { Config } from '../config.js';
import { parse, required, UsageError } from './args.js';
import type { Command } from './commands.js';
import { client, dataOf, printJson, type Client } from './public-api.js';

const KEY_AND_URL = `--key KEY is an API key of the account (flt_…); --url the service (default http://HOST:PORT).`;

const help = {
  batch: `Usage: flightstatus batch [submit|status|results] ...

  batch submit FILE [--wait] [--out FILE] [--skip-invalid] [--local-dates] --key KEY [--url URL]
                                      send a CSV (or .json) of flights; with --wait, follow it and
                                      write the results CSV
  batch status ID --key KEY [--url URL]
                                      a batch's state, counts and progress
  batch results ID [--out FILE] [--only disrupted|owed|owed_not_at_risk] --key KEY [--url URL]
                                      a batch's results as CSV

${KEY_AND_URL}`,
  'batch submit': `Usage: flightstatus batch submit FILE [--wait] [--out FILE] [--skip-invalid] [--local-dates] --key KEY [--url URL]

Sends FILE as a batch: CSV with a header row (flightNumber,flightDate[,dateBasis][,origin][,destination][,reference]),
or a JSON array when FILE ends in .json. Every row is checked first; a file with invalid rows is refused
whole, naming them, unless --skip-invalid. --local-dates: the dates are the departure airports' local
dates, as on boarding passes (rows with their own dateBasis column keep it). Each valid row takes one credit as it is resolved.
Without --wait it prints the batch (JSON) and exits. With --wait it shows a progress bar on a terminal
(a line per 10% otherwise), then writes the results CSV to --out (default ID-results.csv) and prints
the finished batch. ${KEY_AND_URL}`,
  'batch status': `Usage: flightstatus batch status ID --key KEY [--url URL]

Prints the batch: state, counts by outcome, progress, credits, provider calls, estimated finish. ${KEY_AND_URL}`,
  'batch results': `Usage: flightstatus batch results ID [--out FILE] [--only disrupted|owed|owed_not_at_risk] --key KEY [--url URL]

Writes the results as CSV, one row per input row in input order, to --out or stdout. --only disrupted
keeps delayed, cancelled and diverted flights; --only owed those owed EU261 or UK261 compensation;
--only owed_not_at_risk those owed whose circumstances do not put the amount at risk. ${KEY_AND_URL}`,
};

/** How often --wait reads the batch. */
const POLL_MS = 500;
const BAR_WIDTH = 30;

/** What the command reads of a batch (GET /api/v1/batches/{id}; the rest is printed as it came). */
interface BatchView {
  id: string;
  state: string;
  rows: number;
  lookups: number;
  progress: { finished: number; total: number; percent: number };
  estimatedFinishAt?: string | null;
}

/** The progress as a terminal bar, redrawn in place. */
function bar(batch: BatchView): string {
  const { finished, total, percent } = batch.progress;
  const filled = Math.round((percent / 100) * BAR_WIDTH);
  const eta = batch.estimatedFinishAt ? ` · done by ${String(batch.estimatedFinishAt).slice(11, 19)} UTC` : '';
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${String(percent).padStart(3)}% ${finished.toLocaleString('en')}/${total.toLocaleString('en')} rows${eta}`;
}

async function follow(api: Client, id: string): Promise<BatchView> {
  const tty = process.stderr.isTTY === true;
  let shownStep = -1;
  for (;;) {
    const batch = dataOf<BatchView>(await api.call('GET', `/api/v1/batches/${encodeURIComponent(id)}`));
    const ended = batch.state === 'done' || batch.state === 'canceled';
    if (tty) process.stderr.write(`\r${bar(batch)}${ended ? '\n' : ''}`);
    else {
      // A plain line per 10 % when not on a terminal (CI logs, pipes).
      const step = Math.floor(batch.progress.percent / 10);
      if (step > shownStep) {
        shownStep = step;
        process.stderr.write(
          `batch ${id}: ${batch.progress.percent}% (${batch.progress.finished} of ${batch.progress.total} rows)\n`,
        );
      }
    }
    if (ended) return batch;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function results(api: Client, id: string, only: string | undefined): Promise<string> {
  const query = new URLSearchParams({ format: 'csv', ...(only ? { only } : {}) });
  const answer = await api.call(
    'GET',
    `/api/v1/batches/${encodeURIComponent(id)}/results?${query}`,
    undefined,
    'text/csv',
  );
  if (answer.status !== 200) dataOf(answer); // throws the service's message
  return answer.text;
}

async function batchCommand(config: Config, argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  const common = { key: { type: 'string' as const }, url: { type: 'string' as const } };
  if (verb === 'submit') {
    const { values, positionals } = parse(
      rest,
      {
        ...common,
        wait: { type: 'boolean' as const },
        out: { type: 'string' as const },
        'skip-invalid': { type: 'boolean' as const },
        'local-dates': { type: 'boolean' as const },
      },
      1,
    );
    const api = client(config, values.url, required(values.key, '--key'));
    const file = positionals[0]!;
    // The file's bytes as saved: the service tells UTF-8 from Excel's Windows-1252 itself.
    let bytes: Uint8Array;
    try {
      bytes = await readFile(file);
    } catch (error) {
      throw new Error(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
        cause: error,
      });
    }
    const type = /\.json$/i.test(file) ? 'application/json' : 'text/csv';
    const query = new URLSearchParams({
      ...(values['skip-invalid'] ? { skipInvalid: '1' } : {}),
      ...(values['local-dates'] ? { dateBasis: 'local' } : {}),
    }).toString();
    const answer = await api.call('POST', `/api/v1/batches${query ? `?${query}` : ''}`, { type, bytes });
    let batch: BatchView;
    try {
      batch = dataOf<BatchView>(answer);
    } catch (error) {
      // The API's refusal names its query parameter (SKIP_INVALID_HINT in batches/service.ts; the CLI
      // imports none of the service, so that its help loads fast); here the way is this command's flag.
      throw new Error((error as Error).message.replace('send ?skipInvalid=1', 'run again with --skip-invalid'), {
        cause: error,
      });
    }
    if (!values.wait) {
      printJson(batch);
      return 0;
    }
    process.stderr.write(`batch ${batch.id}: ${batch.rows} rows, ${batch.lookups} lookups\n`);
    const finished = await follow(api, batch.id);
    const out = values.out ?? `${batch.id}-results.csv`;
    await writeFile(out, await results(api, batch.id, undefined));
    process.stderr.write(`results written to ${out}\n`);
    printJson(finished);
    return 0;
  }
  if (verb === 'status' || verb === 'results') {
    // status takes neither --out nor --only.
    const { values, positionals } = parse(
      rest,
      verb === 'results' ? { ...common, out: { type: 'string' as const }, only: { type: 'string' as const } } : common,
      1,
    );
    const api = client(config, values.url, required(values.key, '--key'));
    const id = positionals[0]!;
    if (verb === 'status') {
      printJson(dataOf(await api.call('GET', `/api/v1/batches/${encodeURIComponent(id)}`)));
      return 0;
    }
    const { out, only } = values as { out?: string; only?: string };
    if (only !== undefined && !['disrupted', 'owed', 'owed_not_at_risk'].includes(only))
      throw new UsageError('--only must be disrupted, owed or owed_not_at_risk');
    const csv = await results(api, id, only);
    if (out) {
      await writeFile(out, csv);
      process.stderr.write(`results written to ${out}\n`);
    } else process.stdout.write(csv);
    return 0;
  }
  throw new UsageError(
    verb === undefined ? 'batch needs a subcommand: submit, status or results' : `unknown batch command "${verb}"`,
  );
}

export const batch: Command = { help, json: false, run: batchCommand };
