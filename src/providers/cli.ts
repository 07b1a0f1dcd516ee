// `flightstatus providers check`: each configured provider called once, in order, with the key and
// URL of the configuration, so an operator knows before the first lookup whether the keys work.
import type { Config } from '../config.js';
import { systemClock } from '../clock.js';
import { parse, UsageError } from '../cli.js';
import { buildProviders } from './build.js';

export async function providersCommand(config: Config, argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb !== 'check') throw new UsageError(verb === undefined ? 'providers needs a subcommand: check' : `unknown providers command "${verb}"`);
  parse(rest, {}, 0);
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
