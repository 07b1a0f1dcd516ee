// `flightstatus providers check`: each configured provider called once, in order, with the key and
// URL of the configuration, so an operator knows before the first lookup whether the keys work.
import type { Config } from '../config.js';
import { systemClock } from '../clock.js';
import { parse, UsageError } from './args.js';
import type { Command } from './commands.js';

const help = {
  providers: `Usage: flightstatus providers check

  providers check                     call each configured provider once and say whether its key works

flightstatus providers check --help shows it.`,
  'providers check': `Usage: flightstatus providers check

Calls each provider of FLIGHTSTATUS_PROVIDERS once, in order, with its configured key and URL (the
cheapest call it has; it counts against the plan like any other), and prints {provider, ok, message,
durationMs} for each. Exit code 0 when every provider answered, 1 when one did not (each failure is
also a line on stderr). The simulated world needs no key and is always ok.`,
};

async function providersCommand(config: Config, argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb !== 'check') throw new UsageError(verb === undefined ? 'providers needs a subcommand: check' : `unknown providers command "${verb}"`);
  parse(rest, {}, 0);
  const { buildProviders } = await import('../providers/build.js');
  const results = [];
  for (const provider of buildProviders(config, systemClock)) {
    const result = provider.check
      ? await provider.check({ timeoutMs: config.providerTimeoutMs })
      : { ok: true, message: 'the simulated world needs no key and no network', durationMs: 0 };
    results.push({ provider: provider.name, ...result });
    if (!result.ok) process.stderr.write(`flightstatus: ${provider.name}: ${result.message}\n`);
  }
  const ok = results.every((r) => r.ok);
  process.stdout.write(`${JSON.stringify({ success: ok, data: { providers: results } }, null, 2)}\n`);
  return ok ? 0 : 1;
}

export const providers: Command = { help, json: false, run: providersCommand };
