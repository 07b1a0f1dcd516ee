// Helpers shared by the `flightstatus` commands: argument parsing, and printing {success, data|message}.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Result } from './accounts/index.js';

/** A mistake in the command line: printed with the usage text, exit code 2. */
export class UsageError extends Error {}

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T, positionals = 0) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: positionals > 0, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
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

export function print<T>(result: Result<T>): number {
  const body = result.kind === 'ok' ? { success: true, data: result.value } : { success: false, message: result.message };
  process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
  return result.kind === 'ok' ? 0 : 1;
}

