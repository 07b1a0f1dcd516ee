// `flightstatus watch …`: a client of the running service's public watch API (docs/watches.md), with
// an account's API key: watch one flight or a file of them, list the watches, stop one.
import { readFile } from 'node:fs/promises';
import type { Config } from '../config.js';
import { integer, parse, required, UsageError } from './args.js';
import type { Command } from './commands.js';
import { client, dataOf, printJson } from './public-api.js';

const KEY_AND_URL = `--key KEY is an API key of the account (flt_…); --url the service (default http://HOST:PORT).`;

const help = {
  watch: `Usage: flightstatus watch [add|list|rm] ...

  watch add --flight FLIGHT --date DATE [--origin IATA] [--destination IATA] [--reference REF] [--local-date]
            --endpoint ID [--endpoint ID ...] --key KEY [--url URL]
  watch add FILE [--skip-invalid] [--local-dates] --endpoint ID [--endpoint ID ...] --key KEY [--url URL]
                                      watch one flight, or every row of a CSV (or .json) file,
                                      for the account's webhook endpoints; one credit per watch created
  watch list [--state active|stopped|ended] [--reference REF] [--date DATE] [--limit N] [--after ID]
             --key KEY [--url URL]      the account's watches, newest first
  watch rm ID --key KEY [--url URL]   stop a watch

${KEY_AND_URL}`,
  'watch add': `Usage: flightstatus watch add --flight FLIGHT --date DATE [--origin IATA] [--destination IATA] [--reference REF] [--local-date] --endpoint ID [--endpoint ID ...] --key KEY [--url URL]
       flightstatus watch add FILE [--skip-invalid] [--local-dates] --endpoint ID [--endpoint ID ...] --key KEY [--url URL]

Watches one flight, or every row of FILE: CSV with a header row (flightNumber,flightDate[,dateBasis][,origin][,destination][,reference]),
or a JSON array when FILE ends in .json (a row's own "endpoints" wins over --endpoint). --endpoint names
a webhook endpoint of the account (wh_…) the watches send to; give it once per endpoint. Rows are
checked as a batch checks them: a file with invalid rows is refused whole, naming them, unless
--skip-invalid. --local-date(s): the dates are the departure airports' local dates. Each watch created
takes one credit, all of them or none; a watch already active is returned, not charged again. Prints
the watch, or the list (JSON). ${KEY_AND_URL}`,
  'watch list': `Usage: flightstatus watch list [--state active|stopped|ended] [--reference REF] [--date DATE] [--limit N] [--after ID] --key KEY [--url URL]

Prints a page of the account's watches, newest first (JSON with hasMore and nextAfter: pass it as
--after for the next page). ${KEY_AND_URL}`,
  'watch rm': `Usage: flightstatus watch rm ID --key KEY [--url URL]

Stops the watch: it sends nothing more. Prints it. ${KEY_AND_URL}`,
};

async function add(config: Config, rest: string[]): Promise<number> {
  const file = rest[0] !== undefined && !rest[0].startsWith('-');
  const { values, positionals } = parse(
    rest,
    {
      key: { type: 'string' },
      url: { type: 'string' },
      endpoint: { type: 'string', multiple: true },
      ...(file
        ? { 'skip-invalid': { type: 'boolean' }, 'local-dates': { type: 'boolean' } }
        : {
            flight: { type: 'string' },
            date: { type: 'string' },
            origin: { type: 'string' },
            destination: { type: 'string' },
            reference: { type: 'string' },
            'local-date': { type: 'boolean' },
          }),
    } as const,
    file ? 1 : 0,
  );
  const v = values as Record<string, string | boolean | string[] | undefined>;
  const endpoints = (v.endpoint as string[] | undefined) ?? [];
  const api = client(config, v.url as string | undefined, required(v.key as string | undefined, '--key'));
  if (!file) {
    if (endpoints.length === 0) throw new UsageError('--endpoint is required (a webhook endpoint id, wh_…)');
    const body = {
      flightNumber: required(v.flight as string | undefined, '--flight'),
      flightDate: required(v.date as string | undefined, '--date'),
      ...(v.origin ? { origin: v.origin } : {}),
      ...(v.destination ? { destination: v.destination } : {}),
      ...(v.reference ? { reference: v.reference } : {}),
      ...(v['local-date'] ? { dateBasis: 'local' } : {}),
      endpoints,
    };
    const bytes = new TextEncoder().encode(JSON.stringify(body));
    printJson(dataOf(await api.call('POST', '/api/v1/watches', { type: 'application/json', bytes })));
    return 0;
  }
  const path = positionals[0]!;
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new Error(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
      cause: error,
    });
  }
  const query = new URLSearchParams({
    ...(endpoints.length > 0 ? { endpoints: endpoints.join(',') } : {}),
    ...(v['skip-invalid'] ? { skipInvalid: '1' } : {}),
    ...(v['local-dates'] ? { dateBasis: 'local' } : {}),
  }).toString();
  const type = /\.json$/i.test(path) ? 'application/json' : 'text/csv';
  const answer = await api.call('POST', `/api/v1/watches${query ? `?${query}` : ''}`, { type, bytes });
  try {
    printJson(dataOf(answer));
  } catch (error) {
    // The API's refusal names its query parameters; here the way is this command's flags.
    throw new Error(
      (error as Error).message
        .replace('send ?skipInvalid=1', 'run again with --skip-invalid')
        .replace('the endpoints query parameter (?endpoints=wh_…,wh_…)', '--endpoint'),
      { cause: error },
    );
  }
  return 0;
}

async function watchCommand(config: Config, argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === 'add') return add(config, rest);
  const common = { key: { type: 'string' as const }, url: { type: 'string' as const } };
  if (verb === 'list') {
    const { values } = parse(rest, {
      ...common,
      state: { type: 'string' },
      reference: { type: 'string' },
      date: { type: 'string' },
      limit: { type: 'string' },
      after: { type: 'string' },
    });
    const api = client(config, values.url, required(values.key, '--key'));
    if (values.state !== undefined && !['active', 'stopped', 'ended'].includes(values.state))
      throw new UsageError('--state must be active, stopped or ended');
    const query = new URLSearchParams({
      ...(values.state ? { state: values.state } : {}),
      ...(values.reference !== undefined ? { reference: values.reference } : {}),
      ...(values.date ? { flightDate: values.date } : {}),
      ...(values.limit !== undefined ? { limit: String(integer(values.limit, '--limit')) } : {}),
      ...(values.after ? { after: values.after } : {}),
    }).toString();
    printJson(dataOf(await api.call('GET', `/api/v1/watches${query ? `?${query}` : ''}`)));
    return 0;
  }
  if (verb === 'rm') {
    const { values, positionals } = parse(rest, common, 1);
    const api = client(config, values.url, required(values.key, '--key'));
    printJson(dataOf(await api.call('DELETE', `/api/v1/watches/${encodeURIComponent(positionals[0]!)}`)));
    return 0;
  }
  throw new UsageError(
    verb === undefined ? 'watch needs a subcommand: add, list or rm' : `unknown watch command "${verb}"`,
  );
}

export const watch: Command = { help, json: true, run: watchCommand };
