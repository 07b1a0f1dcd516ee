// What the `flightstatus` commands print: the {success, data|message} envelope on stdout (scripts
// parse it), and the exit once everything printed has left the process.
import type { Result } from '../result.js';

/**
 * The envelope on stdout, whatever the outcome (scripts parse it); a refusal is also one line on
 * stderr, for the person at the terminal and for logs that keep only stderr. Exit code 0 or 1.
 */
export function print<T>(result: Result<T>): number {
  const body =
    result.kind === 'ok' ? { success: true, data: result.value } : { success: false, message: result.message };
  process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
  if (result.kind !== 'ok') process.stderr.write(`flightstatus: ${result.message}\n`);
  return result.kind === 'ok' ? 0 : 1;
}

/** Exits once stdout and stderr are flushed: a pipe takes 64 KiB at a time, and exiting earlier cuts long output. */
export function exitAfterFlush(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}
