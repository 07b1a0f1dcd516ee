// The webhook API as a test calls it: an account's key bound to inject(), and a harness of one test
// service with real local receivers, torn down after the describe block.
import { afterAll, beforeAll, expect } from 'vitest';
import { bearer, json, startTestApp, type TestApp, type TestAppOptions } from './app.js';
import type { DatabaseKind } from './databases.js';
import { startReceiver, type Answer, type Received, type Receiver } from './receiver.js';

export interface Api {
  (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown): Promise<{ status: number; body: any }>;
}

/** Calls the service's API with `key`: the status and the parsed JSON body. */
export function apiFor(t: TestApp, key: string): Api {
  return async (method, url, body) => {
    const response = await t.app.http.inject({
      method,
      url,
      headers: bearer(key),
      ...(body === undefined ? {} : { payload: body as object }),
    });
    return { status: response.statusCode, body: json(response) };
  };
}

export interface DeliveryListed {
  id: string;
  event: string;
  type: string;
  state: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
}

/** One test service (started before the block's tests, closed after), an account's API, and receivers. */
export function deliveryHarness(kind: DatabaseKind, options: TestAppOptions = {}) {
  const h = {
    t: undefined as unknown as TestApp,
    api: undefined as unknown as Api,
    receivers: [] as Receiver[],
    async receiver(answer?: (r: Received) => Answer) {
      const r = await startReceiver(answer);
      h.receivers.push(r);
      return r;
    },
    async endpoint(r: Receiver, airports: string[], name = 'hook') {
      const created = await h.api('POST', '/api/v1/webhooks', { name, url: `${r.url}/hook`, airports });
      expect(created.status).toBe(201);
      return created.body.data as { id: string; secret: string; name: string; airports: string[] };
    },
    /** The endpoint as the API shows it. */
    view: async (id: string) => (await h.api('GET', `/api/v1/webhooks/${id}`)).body.data,
    deliveries: async (id: string, query = ''): Promise<DeliveryListed[]> =>
      (await h.api('GET', `/api/v1/webhooks/${id}/deliveries${query}`)).body.data.deliveries,
    /** Moves the manual clock through the operator API; resolves once every job that fell due has run. */
    async advance(seconds: number) {
      const moved = await h.t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: seconds });
      expect(moved.statusCode).toBe(200);
    },
  };
  beforeAll(async () => {
    h.t = await startTestApp(kind, options);
    h.api = apiFor(h.t, (await h.t.account()).key);
  });
  afterAll(async () => {
    await h.t.close();
    for (const r of h.receivers) await r.close();
  });
  return h;
}
