import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventBus } from '../core/events';

const KEEPALIVE_MS = 25_000;

/** Server-sent events: every core event as `event: <name>` / `data: <json>`. */
export function openEventStream(
  req: IncomingMessage,
  res: ServerResponse,
  bus: EventBus,
  open: Set<ServerResponse>,
): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write(': connected\n\n');
  const subscription = bus.subscribe((event) => {
    res.write(`event: ${event.name}\ndata: ${JSON.stringify(event.payload)}\n\n`);
  });
  // A comment now and then keeps proxies and idle timers from closing a quiet stream.
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  keepalive.unref();
  open.add(res);
  const close = (): void => {
    clearInterval(keepalive);
    subscription.dispose();
    open.delete(res);
  };
  req.on('close', close);
  res.on('close', close);
}
