import nexusSplice from 'nexus-splice';
import { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A large answer body moved by the kernel: after Node has parsed the app's answer head and the proxy has checked and
 * rewritten it, the rest of a body of known length goes from the app's socket to the browser's with splice(2) on a
 * thread of the `nexus-splice` addon (native/splice), never entering JS. Node's own copy through the event loop
 * reached a third of the direct pace on this machine (docs/performance.md, "Previews"). Only between two plain sockets
 * (TCP, or Unix: the OpenSSH child's tunnels) on Linux, and only for a body of at least SPLICE_FROM bytes; everything
 * else is forwarded in JS.
 */

/** Below this a body is forwarded in JS: a spliced one costs its app connection (not reused) and a thread. */
export const SPLICE_FROM = 1024 * 1024;
/** A spliced body that moves no byte for this long (either side stalled) is given up. */
const IDLE_MS = 60_000;

interface RawHandle {
  fd?: number;
  readStop?: () => number;
}

/** The descriptor of a plain socket (not TLS, not a stream of an exec or an ssh2 channel), else null. */
function descriptorOf(s: unknown): { socket: Socket; handle: RawHandle; fd: number } | null {
  if (!(s instanceof Socket) || s instanceof TLSSocket) return null;
  const handle = (s as unknown as { _handle?: RawHandle | null })._handle;
  const fd = handle?.fd;
  return handle && typeof fd === 'number' && fd >= 0 && typeof handle.readStop === 'function'
    ? { socket: s, handle, fd }
    : null;
}

export const spliceAvailable = (): boolean => nexusSplice !== null;

const tally = { bodies: 0, bytes: 0 };
/** Bodies (and their bytes) moved by the kernel whole since this process started: for tests and the bench. */
export const splicedSoFar = (): { bodies: number; bytes: number } => ({ ...tally });

/**
 * Takes over the body of `up` when it can be spliced: call it in the response callback, after `res.writeHead`, before
 * anything reads `up`. False: nothing was touched, forward it in JS. `done(error)` says how it ended; on an error the
 * browser's connection is destroyed (its answer is cut short, as when the app's connection breaks mid-body).
 */
export function spliceBody(
  req: IncomingMessage,
  up: IncomingMessage,
  res: ServerResponse,
  done: (error: string | null) => void,
): boolean {
  const length = Number(up.headers['content-length']);
  const status = up.statusCode ?? 0;
  if (!nexusSplice || !Number.isSafeInteger(length) || length < SPLICE_FROM) return false;
  if (req.method === 'HEAD' || status === 204 || status === 304 || up.headers['transfer-encoding']) return false;
  const from = descriptorOf(up.socket);
  const to = descriptorOf(res.socket);
  if (!from || !to) return false;
  const move = nexusSplice.move;
  // No more reads of the app's socket by Node: what it read already is parsed into `up`, and `up` must not ask for
  // more (an IncomingMessage's read starts its socket reading again).
  from.handle.readStop?.();
  up._read = () => undefined;
  // After the parser has pushed the rest of the chunk that held the head.
  setImmediate(() => {
    // The part of the body Node had read with the head, then the rest by the kernel.
    const first: Buffer[] = [];
    for (let c: unknown; (c = up.read()) !== null;) first.push(c as Buffer);
    const seen = first.reduce((n, b) => n + b.length, 0);
    res.flushHeaders();
    to.socket.write(Buffer.concat(first), (err) => {
      if (err) return finish(err.message);
      if (seen >= length) return finish(null);
      // Either side closed meanwhile (the browser went away): its descriptor number may already be another file's.
      if (from.socket.destroyed || to.socket.destroyed) return finish('a side closed before the body');
      move(from.fd, to.fd, length - seen, IDLE_MS, (code, message, moved) => {
        if (code === 0) {
          tally.bodies += 1;
          tally.bytes += moved;
        }
        finish(code === 0 ? null : message);
      });
    });
  });
  const finish = (error: string | null): void => {
    // The app's connection is not reused: its parser never saw the body's end (which it reports as an error).
    up.on('error', () => undefined);
    from.socket.destroy();
    if (error === null) res.end();
    else res.destroy();
    done(error);
  };
  return true;
}
