// Every `flightstatus` command, one file per noun, each with its help beside its parser. Each file
// imports only what help and usage errors need; the modules a command runs on are imported when it runs.
import type { Config } from '../config.js';
import { accounts } from './accounts.js';
import { airports } from './airports.js';
import { batch } from './batch.js';
import { clock } from './clock.js';
import { evidence } from './evidence.js';
import { invoices } from './invoices.js';
import { keys } from './keys.js';
import { migrate } from './migrate.js';
import { plans } from './plans.js';
import { providers } from './providers.js';
import { serve } from './serve.js';
import { sim } from './sim.js';
import { watch } from './watch.js';

export interface Command {
  /** The help of the command and of each of its subcommands, by topic (`accounts`, `accounts create`). */
  help: Record<string, string>;
  /** Its output is JSON: its failures also leave {success: false, message} on stdout. */
  json: boolean;
  /** Runs the command on the arguments after its name; resolves to the exit code. */
  run(config: Config, argv: string[]): Promise<number>;
}

/** In the order of the list of commands (`flightstatus --help`). */
export const COMMANDS: Record<string, Command> = {
  serve,
  migrate,
  accounts,
  keys,
  plans,
  airports,
  invoices,
  clock,
  sim,
  providers,
  batch,
  watch,
  evidence,
};

export const isCommand = (name: string | undefined): name is string =>
  name !== undefined && Object.hasOwn(COMMANDS, name);
