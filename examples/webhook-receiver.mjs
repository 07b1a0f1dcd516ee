// A complete webhook receiver (docs/webhooks.md): verifies each delivery's signature over the raw
// bytes, answers at once, ignores deliveries it has seen (idempotency on `id`) and changes older than
// what it already knows of a flight (ordering by `data.flight.lastSeenAt`).
//
//   WEBHOOK_SECRET=whsec_… PORT=4000 node examples/webhook-receiver.mjs
import { createServer } from 'node:http';
import { verifyWebhook } from 'flight-status-service/webhooks';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error('set WEBHOOK_SECRET to the endpoint secret (whsec_…)');
const seen = new Set(); // delivery ids already handled (use a database table in production)
const latest = new Map(); // flight id → lastSeenAt of the newest change handled

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let event;
    try {
      event = verifyWebhook(Buffer.concat(chunks), req.headers['x-flight-signature'], secret);
    } catch (error) {
      res.writeHead(400).end(error.message);
      console.log(`rejected: ${error.message}`);
      return;
    }
    res.writeHead(204).end(); // answer within 10 s; do slow work after answering
    if (seen.has(event.id)) return; // a retry of a delivery already handled
    seen.add(event.id);
    const flight = event.data.flight;
    if (flight) {
      if ((latest.get(flight.id) ?? '') > flight.lastSeenAt) return; // older than what we know
      latest.set(flight.id, flight.lastSeenAt);
      console.log(
        `${event.type} ${event.airport.iata} ${flight.flightNumber} ${flight.status} (delivery ${event.id}, attempt ${req.headers['x-flight-attempt']})`,
      );
    } else {
      console.log(`${event.type} (delivery ${event.id})`);
    }
  });
});
server.listen(Number(process.env.PORT ?? 4000), '127.0.0.1', () => {
  console.log(`receiving webhooks on http://127.0.0.1:${server.address().port}/hooks`);
});
