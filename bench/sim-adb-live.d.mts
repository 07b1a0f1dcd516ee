// Types of sim-adb-live.mjs, for the tests that import it.
import type { ProviderFlight } from '../src/providers/index.js';

export function adbRowOf(
  flight: ProviderFlight,
  zoneOf: (iata: string | null) => string | null | undefined,
  offset: (timezone: string, at: number) => number,
  now: number,
): Record<string, unknown>;

export function startLiveAdb(
  legsOn: (number: string, localDate: string) => Promise<Record<string, unknown>[]> | Record<string, unknown>[],
  key: string,
  fallback?: string | null,
  aircraftOn?:
    | ((
        registration: string,
        from: number,
        to: number,
      ) => Promise<Record<string, unknown>[]> | Record<string, unknown>[])
    | null,
): Promise<{
  url: string;
  requests: { flight: number; aircraft: number; refused: number; other: number };
  total(): number;
  refuse(n: number, seconds: number): void;
  close(): Promise<void>;
}>;
