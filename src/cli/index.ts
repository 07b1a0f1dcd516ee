// The `flightstatus` command, one file per command (serve, migrate, accounts, keys, plans, airports, invoices,
// clock, sim, providers, batch, watch, evidence). `serve` runs the service (what `npm start` runs); the other
// commands manage accounts and keys straight on the database, so they work while the service runs,
// on SQLite and on PostgreSQL alike. Every command but `serve` prints JSON: {success, data|message}.
// `--help`/`-h` anywhere (or `help COMMAND`) prints that command's help and does nothing else; usage
// errors are one line on stderr and exit 2; other failures one line on stderr and exit 1.
// Only what help, version and usage errors need is imported up front (they answer in a fraction of
// the time); each command loads its own modules.
import { VERSION } from '../version.js';
import { UsageError } from './args.js';
import { COMMANDS, isCommand } from './commands.js';
import { helpText, helpTopic } from './help.js';
import { exitAfterFlush } from './output.js';

/** The arguments before `--`, where options are looked for. */
const optionPart = (argv: string[]) => (argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv);
/** The leading words of a command line (`accounts create`), up to its first option. */
const leadingWords = (argv: string[]) => {
  const end = argv.findIndex((a) => a.startsWith('-'));
  return end === -1 ? argv : argv.slice(0, end);
};

/** The help a command line asks for (`help accounts`, `accounts create --help`, `-h`), or null. */
export function helpRequest(argv: string[]): string | null {
  const asked = optionPart(argv).some((a) => a === '--help' || a === '-h');
  let words = leadingWords(argv);
  if (argv[0] === 'help') {
    words = argv.slice(1).filter((a) => !a.startsWith('-'));
    if (words.length === 0 && asked) words = ['help'];
  } else if (!asked) {
    return null;
  }
  const found = helpTopic(words.slice(0, 2));
  if ('error' in found) throw new UsageError(found.error);
  return found.topic;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('no command given');
  if (command === '--version' || command === '-V') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  // Before the configuration is read: help works with a broken .env and opens nothing.
  const topic = helpRequest(argv);
  if (topic !== null) {
    process.stdout.write(`${helpText(topic)}\n`);
    return 0;
  }
  if (!isCommand(command)) throw new UsageError(`unknown command "${command}"`);
  // The same settings as the service: ./.env and the environment, the environment winning.
  const { loadConfig, loadDotEnv } = await import('../config.js');
  loadDotEnv();
  const config = loadConfig();
  return COMMANDS[command]!.run(config, rest);
}

/** `flightstatus accounts create --help`: the help that goes with a mistake in this command line. */
function helpPointer(argv: string[]): string {
  // `help nothing`: the list of commands is the help that goes with it.
  const words = argv[0] === 'help' ? [] : leadingWords(argv);
  for (const n of [2, 1]) {
    const found = helpTopic(words.slice(0, n));
    if ('topic' in found && found.topic !== '') return `flightstatus ${found.topic} --help`;
  }
  return 'flightstatus --help';
}

/** Runs the command line and exits with its code once the output is flushed. */
export function run(argv: string[]): void {
  main(argv).then(
    (code) => exitAfterFlush(code),
    async (error: unknown) => {
      if (error instanceof UsageError) {
        process.stderr.write(`flightstatus: ${error.message} (see ${helpPointer(argv)})\n`);
        return exitAfterFlush(2);
      }
      // The operator's to fix (a setting, the database): their message says it all, no stack needed.
      const known =
        error instanceof Error &&
        ['ConfigError', 'DatabaseUnavailableError', 'MigrationError', 'SecretKeyError', 'EvidenceKeyError'].includes(
          error.name,
        );
      const message = error instanceof Error ? error.message : String(error);
      if (argv[0] === 'serve') {
        // The service's own log (JSON on stdout) records why it stopped; the stack of an unexpected
        // error only at LOG_LEVEL=debug or trace, so the operator's terminal and log stay readable.
        const verbose = /^(debug|trace)$/i.test(process.env.LOG_LEVEL?.trim() ?? '');
        // A bad configuration names every problem in the line itself (and as a list), not only on stderr.
        const problems =
          error instanceof Error && error.name === 'ConfigError'
            ? (error as Error & { problems: string[] }).problems
            : null;
        const line = problems ? `Invalid configuration: ${problems.join('; ')}` : message.split('\n')[0];
        (await import('../logger.js'))
          .createLogger('error')
          .fatal({ err: !known && verbose ? error : undefined, ...(problems ? { problems } : {}) }, line);
      } else if (isCommand(argv[0]) && COMMANDS[argv[0]]!.json) {
        // The commands whose output is JSON: their failures also leave {success: false, message} on stdout.
        process.stdout.write(`${JSON.stringify({ success: false, message }, null, 2)}\n`);
      }
      process.stderr.write(`flightstatus: ${message}\n`);
      exitAfterFlush(1);
    },
  );
}
