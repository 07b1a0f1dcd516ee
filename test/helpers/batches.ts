// Batches in tests: the flights to put in them, and waiting for one to reach a state through HTTP.
import { expect } from 'vitest';
import { groundTruth, type SimWorld, type TruthFlight } from '../../src/sim/index.js';
import { bearer, json, type TestApp } from './app.js';

export async function waitForBatch(
  t: TestApp,
  key: string,
  id: string,
  until: (b: any) => boolean = (b) => b.state === 'done' || b.state === 'canceled',
  timeoutMs = 30_000,
): Promise<any> {
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

/**
 * A batch's result row answers what a single lookup of the same row answered (`single`: its `data`):
 * status, delay, verdict, EU261/UK261 amounts, circumstances (assessment, amount at risk) and destination.
 */
export function expectSameAsSingle(row: any, single: any, what: string): void {
  expect(row.outcome, what).toBe(single.selected?.status ?? 'not_found');
  // None where the flight never reached its destination (the single answer's 0 is the spec field's type), never 0.
  const neverArrived = single.selected?.isCancelled || single.selected?.isDiverted;
  expect(row.delayMinutes, what).toBe(
    neverArrived ? null : (single.flightDelay?.delayMinutes ?? single.selected?.delayMinutes ?? null),
  );
  expect(row.verdict, what).toBe(single.flightDelay?.statusKind ?? null);
  expect(row.eu261AmountEur, what).toBe(single.compensation?.eu261.amountEur ?? null);
  expect(row.uk261AmountGbp, what).toBe(single.compensation?.uk261.amountGbp ?? null);
  expect(row.circumstances, what).toBe(single.circumstances?.assessment ?? null);
  expect(row.assessment, what).toBe(single.circumstances?.assessment ?? null);
  expect(row.amountAtRisk, what).toBe(single.compensation?.amountAtRisk ?? null);
  expect(row.destination, what).toBe(single.destinationIata);
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
