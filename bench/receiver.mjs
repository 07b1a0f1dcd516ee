// A webhook receiver in the bench's own process: answers 204 to every POST, and keeps what `note`
// makes of each (its request, its raw body and the moment it arrived) in `arrivals`.
import http from 'node:http';

export async function startReceiver(note) {
  const arrivals = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      arrivals.push(note(req, Buffer.concat(chunks), Date.now()));
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    arrivals,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))),
  };
}
