// Rotating an endpoint's secret with an overlap, as Stripe and Svix do: for the chosen time (a day
// unless asked, at most 7 days) every attempt carries a v1 signature for each secret, so a receiver
// still on the old secret and one already on the new both verify it; after it, only the new one.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { verifyWebhook } from '../src/webhooks/verify.js';
import { describeEachDatabase } from './helpers/databases.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { apiFor, type Api } from './helpers/webhooks.js';

describeEachDatabase('webhook secret rotation', (kind) => {
  let t: TestApp;
  let receiver: Receiver;
  let api: Api;
  beforeEach(async () => {
    t = await startTestApp(kind, { pollIntervalMs: 365 * 86_400_000 });
    receiver = await startReceiver();
    api = apiFor(t, (await t.account({ unlimited: true })).key);
  });
  afterEach(async () => {
    await receiver?.close();
    await t?.close();
  });

  /** Sends a test event; the signature header it carried. */
  const signatureOf = async (id: string) => {
    expect((await api('POST', `/api/v1/webhooks/${id}/test`)).status).toBe(200);
    const sent = receiver.received.at(-1)!;
    return { raw: sent.raw, header: String(sent.headers['x-flight-signature']) };
  };
  const verifies = (sent: { raw: Buffer; header: string }, secret: string) => {
    try {
      return verifyWebhook(sent.raw, sent.header, secret, { now: Date.now() }).type === 'webhook.test';
    } catch {
      return false;
    }
  };

  it('signs with both secrets while the overlap lasts, then with the new one only', async () => {
    const created = await api('POST', '/api/v1/webhooks', { name: 'intake', url: receiver.url, airports: ['OTP'] });
    expect(created.status).toBe(201);
    const { id, secret: first } = created.body.data as { id: string; secret: string };
    expect(created.body.data.previousSecretUntil).toBeNull();
    expect((await signatureOf(id)).header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

    const rotated = await api('POST', `/api/v1/webhooks/${id}/rotate`, { overlapSeconds: 3600 });
    expect(rotated.status).toBe(200);
    const second = rotated.body.data.secret as string;
    const now = Date.parse((await t.admin('GET', '/api/admin/v1/clock')).json().data.now);
    expect(Date.parse(rotated.body.data.previousSecretUntil)).toBe(now + 3600_000);
    const during = await signatureOf(id);
    expect(during.header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect([verifies(during, second), verifies(during, first)]).toEqual([true, true]);
    expect((await api('GET', `/api/v1/webhooks/${id}`)).body.data.previousSecretUntil).toBe(
      rotated.body.data.previousSecretUntil,
    );

    expect((await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 3601 })).statusCode).toBe(200);
    const after = await signatureOf(id);
    expect(after.header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect([verifies(after, second), verifies(after, first)]).toEqual([true, false]);
  });

  it('keeps the old secret a day unless told, ends it at once with 0, and refuses more than 7 days', async () => {
    const { id } = (await api('POST', '/api/v1/webhooks', { name: 'intake', url: receiver.url, airports: ['OTP'] }))
      .body.data as { id: string };
    const now = Date.parse((await t.admin('GET', '/api/admin/v1/clock')).json().data.now);
    const byDefault = await api('POST', `/api/v1/webhooks/${id}/rotate`);
    expect(byDefault.status).toBe(200);
    expect(Date.parse(byDefault.body.data.previousSecretUntil)).toBe(now + 86_400_000);
    const atOnce = await api('POST', `/api/v1/webhooks/${id}/rotate`, { overlapSeconds: 0 });
    expect(atOnce.body.data.previousSecretUntil).toBeNull();
    const only = await signatureOf(id);
    expect(only.header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifies(only, atOnce.body.data.secret)).toBe(true);
    expect(verifies(only, byDefault.body.data.secret)).toBe(false);
    for (const overlapSeconds of [604_801, -1, 1.5, 'day']) {
      const refused = await api('POST', `/api/v1/webhooks/${id}/rotate`, { overlapSeconds });
      expect(refused.status, String(overlapSeconds)).toBe(400);
      expect(refused.body.message).toMatch(/overlapSeconds/);
    }
    expect((await api('POST', `/api/v1/webhooks/${id}/rotate`, { overlap: 5 })).status).toBe(400);
  });
});
