// Batches in tests: wait for one to reach a state, reading it through HTTP.
import { expect } from 'vitest';
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
