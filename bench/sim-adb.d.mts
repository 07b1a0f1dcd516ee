// Types of sim-adb.mjs, for the tests that import it.
import type { TruthFlight } from '../src/sim/index.js';

export interface SimAdbFlight {
  row: Record<string, unknown>;
  number: string;
  origin: string;
  registration: string;
  departureLocal: string;
}

export function adbFlights(
  truths: TruthFlight[],
  airport: (iata: string) => { icao: string | null; timezone: string | null } | null | undefined,
  offset: (timezone: string, at: number) => number,
): SimAdbFlight[];

export function startSimAdb(
  flights: SimAdbFlight[],
  key: string,
): Promise<{
  url: string;
  requests: { flight: number; board: number; rotation: number; coverage: number; other: number };
  total(): number;
  close(): Promise<void>;
}>;
