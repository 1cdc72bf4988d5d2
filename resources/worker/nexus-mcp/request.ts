import { NoRespondersError, RequestError, type Msg, type NatsConnection } from '@nats-io/transport-node';

/** How long to wait before asking again while nobody serves the subject (core is reconnecting). */
const RETRY_MS = 200;

const noResponders = (e: unknown): boolean =>
  e instanceof NoRespondersError || (e instanceof RequestError && e.isNoResponders());

/**
 * Requests that survive core's nats-server being restarted under a running agent (it comes back
 * on the same address with the same users). A request is sent only while the connection is up
 * (one buffered during a reconnect is lost), and asked again while nobody serves the subject yet
 * (core's own connection is still coming back): in both cases core never saw it, so nothing runs
 * twice. A request core received is never repeated. All of it within the one timeout.
 */
export function requestsThatReconnect(
  nc: NatsConnection,
  timeoutMs: number,
): (subject: string, payload: string) => Promise<Msg> {
  let up: Promise<void> = Promise.resolve();
  let release = (): void => undefined;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') up = new Promise((r) => (release = r));
      else if (s.type === 'reconnect') release();
    }
  })();
  return async (subject, payload) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const left = deadline - Date.now();
      let timer: NodeJS.Timeout | undefined;
      const connected = await Promise.race([
        up.then(() => true),
        new Promise<boolean>((r) => (timer = setTimeout(() => r(false), Math.max(left, 0)))),
      ]);
      clearTimeout(timer);
      if (!connected) throw new Error(`Nexus did not answer within ${timeoutMs} ms: its NATS server is unreachable.`);
      try {
        return await nc.request(subject, payload, { timeout: Math.max(deadline - Date.now(), 1) });
      } catch (e) {
        if (!noResponders(e) || Date.now() + RETRY_MS >= deadline) throw e;
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
  };
}
