#!/usr/bin/env node
// Forked by bench/webhooks.mjs's failing scenario: a receiver that answers every delivery 503, in a
// process of its own so that its work does not delay the bench's probe of the API (in the bench's own
// event loop, 1,000 endpoints' first attempts inflated the probe's latencies in the cycle's first seconds).
// Sends { port } once listening; answers { attempts } to the message 'count'; 'close' ends it.
import http from 'node:http';

let attempts = 0;
const server = http.createServer((req, res) => {
  attempts++;
  req.resume();
  req.on('end', () => res.writeHead(503).end('busy'));
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (message) => {
  if (message === 'count') process.send({ attempts });
  if (message === 'close') {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
