// The command line of the `flightstatus` commands: Node's own parser (util.parseArgs, strict) with our
// messages, the usage error every command throws for a mistake, and the --url option of the commands
// that ask the running service.
import { parseArgs, type ParseArgsConfig } from 'node:util';

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
    throw new UsageError(
      `Expected ${positionals} argument${positionals === 1 ? '' : 's'}, got ${parsed.positionals.length}`,
    );
  }
  return parsed;
}

export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${flag} is required`);
  return value;
}

export function integer(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new UsageError(`${flag} must be a whole number`);
  return Number(value);
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
      if (value === undefined || value === '' || value.startsWith('-'))
        throw new UsageError('--url needs the service address, e.g. --url http://127.0.0.1:8080');
      url = value;
    } else {
      rest.push(arg);
    }
  }
  if (url !== undefined && !/^https?:\/\/[^/\s]+\/*$/.test(url))
    throw new UsageError(`--url must be the service address such as http://127.0.0.1:8080 (got "${url}")`);
  return { url, rest };
}
