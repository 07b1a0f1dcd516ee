// A customer's program, run by test/client-package.test.ts in an empty project where the packed
// tarball is installed: it imports the package by name only, calls the API with a real key and
// receives real signed deliveries on a receiver of its own, across a secret rotation. It prints what
// it saw as one JSON object; the test judges it.
//
//   FLIGHTSTATUS_URL=http://127.0.0.1:8080 FLIGHTSTATUS_KEY=… FLIGHT_QUERY='{"flightNumber":…}' node consumer.mjs
import { createServer } from 'node:http';
import { createFlightStatusClient, verifyWebhook, WebhookVerificationError } from '@flightstatus/client';
import * as receiverOnly from '@flightstatus/client/webhooks';

const api = createFlightStatusClient({ baseUrl: process.env.FLIGHTSTATUS_URL, apiKey: process.env.FLIGHTSTATUS_KEY });
const report = {
  resolved: import.meta.resolve('@flightstatus/client'),
  exports: { sameVerifier: receiverOnly.verifyWebhook === verifyWebhook },
};

// 1. The API: who am I, the airports, a flight (one credit), an unknown endpoint (the error envelope).
const account = await api.GET('/api/v1/account');
report.account = {
  status: account.response.status,
  accountSlug: account.data?.data.accountSlug,
  remaining: account.response.headers.get('x-credits-remaining'),
};
const airports = await api.GET('/api/v1/airports');
report.airports = {
  status: airports.response.status,
  count: airports.data?.data.count,
  iatas: airports.data?.data.airports.map((a) => a.iata),
};
const flight = await api.GET('/api/v1/flights/status', { params: { query: JSON.parse(process.env.FLIGHT_QUERY) } });
report.flight = {
  status: flight.response.status,
  flightNumber: flight.data?.data.flightNumber,
  selected: flight.data?.data.selected?.status,
  remaining: flight.response.headers.get('x-credits-remaining'),
};
const missing = await api.GET('/api/v1/webhooks/{id}', { params: { path: { id: 'wh_doesnotexist' } } });
report.missing = { status: missing.response.status, data: missing.data ?? null, code: missing.error?.code };

// 2. A receiver: verifies each delivery with the secrets it holds now, answers 204, or 400 and why.
let held = [];
const received = [];
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    const header = req.headers['x-flight-signature'];
    try {
      const event = verifyWebhook(raw, header, held);
      received.push({ raw, header, held: held.length, type: event.type, id: event.id });
      res.writeHead(204).end();
    } catch (error) {
      received.push({ raw, header, held: held.length, rejected: `${error.name}: ${error.message}` });
      res.writeHead(400).end(error.message);
    }
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/hooks`;

try {
  const created = await api.POST('/api/v1/webhooks', { body: { name: 'client package', url, airports: ['OTP'] } });
  if (!created.data) throw new Error(`creating the endpoint answered ${created.response.status}`);
  const { id, secret: oldSecret } = created.data.data;

  /**
   * A signed test event now (the service allows 5 a minute per endpoint: this program sends 4),
   * received while the receiver holds `secrets`: what the service and the receiver saw.
   */
  const sendHolding = async (secrets) => {
    held = secrets;
    const sent = await api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id } } });
    const got = received.at(-1);
    return {
      delivered: sent.data?.data.delivered,
      statusCode: sent.data?.data.statusCode,
      v1: String(got?.header).match(/v1=/g)?.length ?? 0,
      type: got?.type ?? null,
      rejected: got?.rejected ?? null,
    };
  };
  report.before = await sendHolding([oldSecret]);

  const rotated = await api.POST('/api/v1/webhooks/{id}/rotate', {
    params: { path: { id } },
    body: { overlapSeconds: 3600 },
  });
  if (!rotated.data) throw new Error(`rotating the secret answered ${rotated.response.status}`);
  const newSecret = rotated.data.data.secret;
  report.rotated = { changed: newSecret !== oldSecret, previousSecretUntil: rotated.data.data.previousSecretUntil };
  report.during = {
    oldOnly: await sendHolding([oldSecret]),
    newOnly: await sendHolding([newSecret]),
    both: await sendHolding([newSecret, oldSecret]),
  };

  // 3. Forgeries at the receiver: a made-up signature, and a real delivery's header on a changed body.
  held = [newSecret, oldSecret];
  const real = received.find((r) => r.type === 'webhook.test');
  const forge = async (body, header) => {
    const answer = await fetch(url, { method: 'POST', body, headers: { 'x-flight-signature': header } });
    return { status: answer.status, text: await answer.text() };
  };
  const now = Math.floor(Date.now() / 1000);
  report.forged = {
    madeUp: await forge(real.raw, `t=${now},v1=${'0'.repeat(64)}`),
    changedBody: await forge(Buffer.from(real.raw.toString().replace('webhook.test', 'flight.delayed')), real.header),
  };
  try {
    verifyWebhook(real.raw, `t=${now},v1=${'f'.repeat(64)}`, [newSecret, oldSecret]);
    report.forged.thrown = null;
  } catch (error) {
    report.forged.thrown = { isVerificationError: error instanceof WebhookVerificationError, name: error.name };
  }
} finally {
  server.close();
}
console.log(JSON.stringify(report));
