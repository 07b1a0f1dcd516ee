// Each provider called once, in cascade order, as cheaply as it allows: does its address answer and
// its key work? The operator API (POST /api/admin/v1/providers/check) runs it with the running
// service's providers; `flightstatus providers check --local` with the shell's configuration.
import type { FlightProvider } from './types.js';

export interface ProviderCheck {
  provider: string;
  ok: boolean;
  message: string;
  durationMs: number;
}

export async function checkProviders(
  providers: readonly FlightProvider[],
  timeoutMs: number,
): Promise<ProviderCheck[]> {
  const results: ProviderCheck[] = [];
  for (const provider of providers) {
    const result = provider.check
      ? await provider.check({ timeoutMs })
      : { ok: true, message: 'the simulated world needs no key and no network', durationMs: 0 };
    results.push({ provider: provider.name, ok: result.ok, message: result.message, durationMs: result.durationMs });
  }
  return results;
}
