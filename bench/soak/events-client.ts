import { createHash } from 'node:crypto';

/**
 * An SSE client of /api/events, as the UI holds one: every event with the digest core's tap computes
 * for it (sha1 of `<name>\n<data>`), and the windows it was connected in (it reconnects after a core
 * restart; what core emitted while it was away is not owed to it).
 */
export interface EventsClient {
  /** [connectedAt, closedAt (or Infinity)], in Date.now() time. */
  windows(): [number, number][];
  close(): void;
}

export function followEvents(
  url: () => string | null,
  token: string,
  onEvent: (name: string, data: string, digest: string, t: number) => void,
): EventsClient {
  const windows: [number, number][] = [];
  let closed = false;
  let abort: AbortController | null = null;
  const once = async (): Promise<void> => {
    const base = url();
    if (!base) return;
    abort = new AbortController();
    const res = await fetch(`${base}/api/events`, {
      headers: { authorization: `Bearer ${token}` },
      signal: abort.signal,
    });
    if (!res.ok || !res.body) throw new Error(`/api/events answered ${res.status}`);
    const decoder = new TextDecoder();
    let buf = '';
    let win: [number, number] | null = null;
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buf += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          if (block.startsWith(': connected') && !win) {
            win = [Date.now(), Infinity];
            windows.push(win);
            continue;
          }
          const name = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (name === undefined || data === undefined) continue;
          const t = Date.now();
          onEvent(name, data, createHash('sha1').update(`${name}\n${data}`).digest('hex'), t);
        }
      }
    } finally {
      if (win) win[1] = Date.now();
    }
  };
  void (async () => {
    while (!closed) {
      await once().catch(() => undefined);
      if (!closed) await new Promise((r) => setTimeout(r, 300));
    }
  })();
  return {
    windows: () => windows,
    close: () => {
      closed = true;
      abort?.abort();
    },
  };
}
