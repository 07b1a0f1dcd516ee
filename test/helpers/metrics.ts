// The provider calls a test service made so far, by kind (flight, board, rotation, weather…), read
// from its /metrics as an operator reads them.
import type { TestApp } from './app.js';

export async function providerCalls(t: TestApp): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const text = (await t.admin('GET', '/metrics')).body;
  for (const m of text.matchAll(/^flightstatus_provider_calls_total\{([^}]*)\} (\d+)/gm)) {
    const kind = /kind="([^"]+)"/.exec(m[1]!)?.[1] ?? '?';
    out[kind] = (out[kind] ?? 0) + Number(m[2]);
  }
  return out;
}
