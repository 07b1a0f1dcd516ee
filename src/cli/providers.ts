// `flightstatus providers check`: each provider called once, in order, so an operator knows before the
// first lookup whether the keys work. By default it asks the running service (its operator API), whose
// providers are what lookups use; --local checks this shell's configuration instead, and so does a
// shell where no service answers. Either way it says which it checked.
import type { Config } from '../config.js';
import { redactUrl } from '../config.js';
import { systemClock } from '../clock.js';
import { parse, takeUrl, UsageError } from './args.js';
import type { Command } from './commands.js';

const help = {
  providers: `Usage: flightstatus providers check [--local] [--url URL]

  providers check                     call each provider once and say whether its key works

flightstatus providers check --help shows it.`,
  'providers check': `Usage: flightstatus providers check [--local] [--url URL]

Calls each provider once, in cascade order, with its key and URL (the cheapest call it has; it counts
against the provider's plan like any other), and prints {checked, ok, providers: [{provider, ok,
message, durationMs}]}. The simulated world needs no key and is always ok.

By default it asks the running service at http://HOST:PORT (or --url) through the operator API
(FLIGHTSTATUS_ADMIN_TOKEN as the service has it), so it checks the providers lookups use. Where no
service answers it checks this shell's configuration (FLIGHTSTATUS_PROVIDERS and the keys) and says
so; --local does that without asking. Exit code 0 when every provider answered, 1 when one did not
(each failure is also a line on stderr).`,
};

interface Checked {
  checked: { target: 'service'; url: string } | { target: 'configuration'; providers: string };
  ok: boolean;
  providers: { provider: string; ok: boolean; message: string; durationMs: number }[];
}

async function providersCommand(config: Config, argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb !== 'check')
    throw new UsageError(
      verb === undefined ? 'providers needs a subcommand: check' : `unknown providers command "${verb}"`,
    );
  const { url, rest: others } = takeUrl(rest);
  const { values } = parse(others, { local: { type: 'boolean' } }, 0);
  if (values.local && url !== undefined)
    throw new UsageError("--local checks this shell's configuration; --url asks a service: give one of them");
  const say = (line: string) => process.stderr.write(`flightstatus: ${line}\n`);

  const { serviceBase } = await import('./running-service.js');
  const base = values.local ? null : serviceBase(config, url);
  let result = base === null ? null : await askService(base, config.adminToken);
  if (result) {
    say(`checked the providers of the service at ${redactUrl(base!)}`);
  } else {
    if (!values.local)
      say(
        `no service answered${base ? ` at ${redactUrl(base)}` : ' (PORT is 0; pass --url)'}; checking this shell's configuration instead`,
      );
    result = await checkLocally(config);
    say(`checked this shell's configuration (FLIGHTSTATUS_PROVIDERS=${config.providers.join(',')})`);
  }
  for (const failed of result.providers.filter((p) => !p.ok)) say(`${failed.provider}: ${failed.message}`);
  process.stdout.write(`${JSON.stringify({ success: result.ok, data: result }, null, 2)}\n`);
  return result.ok ? 0 : 1;
}

async function checkLocally(config: Config): Promise<Checked> {
  const { buildProviders } = await import('../providers/build.js');
  const { checkProviders } = await import('../providers/index.js');
  const { createSimProvider } = await import('../sim/index.js');
  const providers = await checkProviders(
    buildProviders(config, systemClock, () => createSimProvider(config.sim, systemClock)),
    config.providerTimeoutMs,
  );
  return {
    checked: { target: 'configuration', providers: config.providers.join(',') },
    ok: providers.every((p) => p.ok),
    providers,
  };
}

/** The running service's check, or null when nothing answers at `base`; a refusal is an error saying what to set. */
async function askService(base: string, token: string | null): Promise<Checked | null> {
  const shown = redactUrl(base);
  let response: Response;
  try {
    response = await fetch(`${base}/api/admin/v1/providers/check`, {
      method: 'POST',
      headers: token ? { authorization: `Bearer ${token}` } : {},
      // Each provider within its own deadline, one after another.
      signal: AbortSignal.timeout(5 * 60_000),
    });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError')
      throw new Error(`the service at ${shown} did not finish the check within 5 minutes`, { cause: error });
    return null;
  }
  const body = (await response.json().catch(() => null)) as {
    success?: boolean;
    data?: { ok: boolean; providers: Checked['providers'] };
  } | null;
  if (response.ok && body?.success && body.data) return { checked: { target: 'service', url: shown }, ...body.data };
  const local = "or run providers check --local for this shell's configuration";
  if (!token)
    throw new Error(
      `a service answers at ${shown}; set FLIGHTSTATUS_ADMIN_TOKEN as the service has it to check its providers, ${local}`,
    );
  if (response.status === 401)
    throw new Error(`the service at ${shown} refused FLIGHTSTATUS_ADMIN_TOKEN; set it as the service has it, ${local}`);
  throw new Error(
    `${shown} answered ${response.status} to the operator API; is the Flight Status Service running there with FLIGHTSTATUS_ADMIN_TOKEN set? (pass --url for another service, ${local})`,
  );
}

export const providers: Command = { help, json: false, run: providersCommand };
