// An answer given before the request's body has arrived (a body over its limit, a refusal at the
// door) must still reach a client that is busy sending that body. Closing the connection at once
// (Fastify asks for `Connection: close` on a body too large, and Node then destroys the socket)
// leaves the client's next bytes unread, and the kernel answers them with a reset that can erase
// the answer before the client reads it: Node's fetch saw ECONNRESET/EPIPE instead of the 413 on
// about a third of 2 MB posts. So the rest of the body is read and thrown away, as nginx's lingering
// close does, and the connection stays usable once it has all arrived; a client that keeps sending
// past a bound of bytes or time, or goes quiet, is cut off. docs/decisions.md, "Issue 42, item 8".
import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';

export interface DiscardBounds {
  /** Most bytes read and thrown away after the answer. */
  bytes: number;
  /** Longest time spent doing so, from the answer. */
  totalMs: number;
  /** Longest wait for the next bytes. */
  idleMs: number;
}

/**
 * nginx's lingering_time (30 s) and lingering_timeout (5 s); and 64 MiB, six times the largest body
 * limit the service can be given (FLIGHTSTATUS_BODY_LIMIT at most 10 MiB), so any honest mistake
 * (a file a little or a lot over) is read to its end, while a sender with no end costs at most
 * that much reading, which runs at memory speed.
 */
export const DISCARD_BOUNDS: DiscardBounds = { bytes: 64 * 1024 * 1024, totalMs: 30_000, idleMs: 5_000 };

/** Sockets whose refused body is being read and thrown away; cut off when the server closes. */
export class Discarding {
  private readonly sockets = new Set<Socket>();

  constructor(private readonly bounds: DiscardBounds) {}

  /**
   * Reads and throws away what remains of `request`'s body, within the bounds. Returns false (and
   * does nothing) when the body has already arrived whole.
   */
  rest(request: IncomingMessage): boolean {
    const socket = request.socket;
    // A request injected in tests (light-my-request) has no socket to read from.
    if (request.complete || !(socket instanceof Socket) || socket.destroyed) return false;
    if (this.sockets.has(socket)) return true;
    this.sockets.add(socket);
    let read = 0;
    const cut = () => socket.destroy();
    const total = setTimeout(cut, this.bounds.totalMs).unref();
    const idle = setTimeout(cut, this.bounds.idleMs).unref();
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > this.bounds.bytes) return cut();
      idle.refresh();
    };
    const done = () => {
      clearTimeout(total);
      clearTimeout(idle);
      request.off('data', onData);
      request.off('end', done);
      socket.off('close', done);
      this.sockets.delete(socket);
    };
    request.on('data', onData);
    request.once('end', done);
    socket.once('close', done);
    request.resume();
    return true;
  }

  /** Cuts off every body still being discarded (the server is closing). */
  cutAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }
}
