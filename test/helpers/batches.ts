// Batches in tests: the flights to put in them, and waiting for one to reach a state through HTTP.
import { expect } from 'vitest';
import { groundTruth, type SimWorld, type TruthFlight } from '../../src/sim/index.js';
import { bearer, json, type TestApp } from './app.js';

export async function waitForBatch(t: TestApp, key: string, id: string, until: (b: any) => boolean = (b) => b.state === 'done' || b.state === 'canceled', timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await t.get(`/api/v1/batches/${id}`, bearer(key));
    expect(response.statusCode).toBe(200);
    const batch = json(response).data;
    if (until(batch)) return batch;
    if (Date.now() > deadline) throw new Error(`batch ${id} still ${batch.state}: ${JSON.stringify(batch.progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Passenger flights of the day whose number flies one leg that day, by status (no origin needed to find them). */
export function flightsByStatus(world: SimWorld, date: string): Map<TruthFlight['status'], TruthFlight[]> {
  const day = groundTruth(world, date);
  const legs = new Map<string, number>();
  for (const f of day) legs.set(f.flightNumber, (legs.get(f.flightNumber) ?? 0) + 1);
  const out = new Map<TruthFlight['status'], TruthFlight[]>();
  for (const f of day) {
    if (f.operation !== 'passenger' || legs.get(f.flightNumber) !== 1) continue;
    out.set(f.status, [...(out.get(f.status) ?? []), f]);
  }
  return out;
}
