// Helpers shared by the `flightstatus` commands: argument parsing, and printing {success, data|message}.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Result } from './result.js';

/** A mistake in the command line: one line on stderr pointing at the command's --help, exit code 2. */
export class UsageError extends Error {}

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T, positionals = 0) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: positionals > 0, strict: true });
  } catch (error) {
    // Node's messages run to three lines ("...is ambiguous.\nDid you forget..."): keep the first.
    const { code, message } = error as Error & { code?: string };
    const flag = /'(--?[\w-]+)/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag && /ambiguous|missing/.test(message)) {
      throw new UsageError(`${flag} needs a value`);
    }
    throw new UsageError(message.split('\n')[0]!);
  }
  if (parsed.positionals.length !== positionals) {
    throw new UsageError(`Expected ${positionals} argument${positionals === 1 ? '' : 's'}, got ${parsed.positionals.length}`);
  }
  return parsed;
}

export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${flag} is required`);
  return value;
}

export function integer(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new UsageError(`${flag} must be a whole number`);
  return Number(value);
}

/**
 * The envelope on stdout, whatever the outcome (scripts parse it); a refusal is also one line on
 * stderr, for the person at the terminal and for logs that keep only stderr. Exit code 0 or 1.
 */
export function print<T>(result: Result<T>): number {
  const body = result.kind === 'ok' ? { success: true, data: result.value } : { success: false, message: result.message };
  process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
  if (result.kind !== 'ok') process.stderr.write(`flightstatus: ${result.message}\n`);
  return result.kind === 'ok' ? 0 : 1;
}


/** `--url URL` or `--url=URL` taken out of the arguments (any position), for the commands that ask the service. */
export function takeUrl(argv: string[]): { url: string | undefined; rest: string[] } {
  const rest: string[] = [];
  let url: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg === '--url' || arg.startsWith('--url=')) {
      const value = arg === '--url' ? argv[++i] : arg.slice('--url='.length);
      if (value === undefined || value === '' || value.startsWith('-')) throw new UsageError('--url needs the service address, e.g. --url http://127.0.0.1:8080');
      url = value;
    } else {
      rest.push(arg);
    }
  }
  if (url !== undefined && !/^https?:\/\/[^/\s]+\/*$/.test(url)) throw new UsageError(`--url must be the service address such as http://127.0.0.1:8080 (got "${url}")`);
  return { url, rest };
}
