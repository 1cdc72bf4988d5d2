/**
 * nexus-hook-relay: one per workspace container, resident, started by core through the runtime's
 * exec (main/core/sessions/hooks/hook-relay.ts) under a shell loop that starts it again when it dies.
 *   node nexus-hook-relay.cjs <natsConfigFile> <port> <workspaceId> <crashes> <readyFile> [<stateDir>]
 * It holds one NATS connection with the workspace's hook-publisher credentials (read from the file
 * at every connect, so a core restart's new password is picked up) and serves the agent's HTTP
 * hooks on 127.0.0.1:<port> (relay.ts); given a state dir, it also writes each session's inbox.json
 * from its SessionStart (the shell hook hands it the address). On connect it first says it started and how many times its
 * loop saw it die (`crashes`): core then marks that events may have been missed. While NATS is down
 * (a nats-server restart) events wait in order and go out once core listens again. Core answers each
 * event; one it did not answer goes again (core keeps the first copy). SIGHUP: the file
 * names another server → exit 75 (a planned restart, not counted as a crash). It also delivers the messages
 * core sends the workspace's sessions (messages.ts), without a process per message, and takes their checkpoints at
 * core's ask (checkpoints.ts), without a `docker exec` per turn.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { hookFileAuth } from '../nats-credential';
import { ID } from '../nexus-hook/event';
import { serveCheckpoints } from './checkpoints';
import { serveMessages } from './messages';
import { createRelayServer } from './relay';

interface Target {
  url: string;
  user?: string;
  pass?: string;
  permissionWaitMs?: number;
  /** Tests: the permission question's slice (ASK_SLICE_MS). */
  askSliceMs?: number;
  /** Where the sessions' inbox addresses are (messages.ts); absent in a file from before relays delivered. */
  stateDir?: string;
}

const PLANNED_EXIT = 75;
const MAX_PENDING = 10_000;
/** How long a permission question waits for an answer before it is asked again (core dedupes by askId). */
const ASK_SLICE_MS = 10_000;
/** How long a sent event waits for core's answer before it goes again. */
const ACK_MS = 5000;
/** A connection that stops answering pings (its address is gone) is noticed in ~10 s, not the client's 4 min. */
const PING_MS = 5000;

async function main(): Promise<void> {
  const [natsFile, portArg, workspaceId, crashesArg, readyFile, stateDir] = process.argv.slice(2);
  if (!natsFile || !readyFile || !workspaceId || !ID.test(workspaceId)) throw new Error('usage: see main.ts');
  const read = (): Target => JSON.parse(readFileSync(natsFile, 'utf8')) as Target;
  const first = read();
  // Publishing goes straight to the connection only while it is up and someone listens on the
  // hooks subject; otherwise events wait here, in order (see deliverWhenHeard).
  let nc: NatsConnection | null = null;
  let open = false;
  const pending: [string, string][] = [];
  // Events a send found nobody listening for (core killed, its nats-server still up), by send order:
  // they go out again, first, once a core listens.
  const unheard: [number, string, string][] = [];
  let order = 0;
  // Sent, not answered yet. A disconnect puts them all back with the unheard, so what went into a
  // dead connection goes out again before anything newer.
  const inflight = new Map<number, [string, string]>();
  let dropped = 0;
  let connected: () => void = () => undefined;
  const up = new Promise<void>((r) => (connected = r));
  const hooks = `nexus.hooks.${workspaceId}`;
  let recovering = false;
  const send = (subject: string, payload: string): void => {
    const conn = nc;
    if (!conn) return void pending.push([subject, payload]);
    const n = ++order;
    // A request: core answers each event once it has it. No answer — "no responders" (core away,
    // its nats-server up) or none in time (a dead connection: the container's network was cut and
    // came back on another address) — and the event waits again, in send order, for the next core
    // that answers; core drops a copy it already had (hook-subscriber.ts).
    inflight.set(n, [subject, payload]);
    conn.request(subject, payload, { timeout: ACK_MS }).then(
      () => void inflight.delete(n),
      () => {
        if (!inflight.delete(n)) return;
        unheard.push([n, subject, payload]);
        recover();
      },
    );
  };
  const setOpen = (o: boolean): void => void (open = o);
  /** Nobody listens on the hooks subject (any more): hold events until someone does, then send what waited. */
  const recover = (): void => {
    open = false;
    const conn = nc;
    if (recovering || !conn) return;
    recovering = true;
    void deliverWhenHeard(conn, hooks, pending, unheard, send, setOpen).finally(() => (recovering = false));
  };
  const server = createRelayServer({
    workspaceId,
    permissionWaitMs: first.permissionWaitMs ?? 120_000,
    stateDir: stateDir || undefined,
    publish: (subject, payload) => {
      if (nc && open) send(subject, payload);
      else if (pending.length < MAX_PENDING) pending.push([subject, payload]);
      else dropped++;
    },
    request: async (subject, payload, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      await up;
      for (;;) {
        // After the event it belongs to, which may still be waiting; and asked again of the core
        // that comes back when nobody answered (core away).
        while (!open) {
          if (Date.now() >= deadline) return null;
          await new Promise((r) => setTimeout(r, 50));
        }
        // In slices: a core SIGKILLed while it held the question never answers, and the one started since never
        // heard it. Asked again (same askId), the holder takes the new reply subject and a new core holds it anew.
        const slice = Math.max(1, Math.min(first.askSliceMs ?? ASK_SLICE_MS, deadline - Date.now()));
        try {
          return (await nc!.request(subject, payload, { timeout: slice })).string();
        } catch (e) {
          if (Date.now() >= deadline) return null;
          if (noResponders(e)) recover();
        }
      }
    },
  });
  // Listen before connecting: an event that comes while NATS is not there yet waits in order.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(portArg), '127.0.0.1', () => resolve());
  });
  writeFileSync(readyFile, String(process.pid));
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGHUP', () => {
    try {
      if (read().url !== first.url) process.exit(PLANNED_EXIT);
    } catch {
      // an unreadable file changes nothing
    }
  });
  const conn = await connect({
    servers: first.url,
    ...hookFileAuth(read),
    inboxPrefix: `nexus.permission-replies.${workspaceId}`,
    name: `nexus-hook-relay-${workspaceId}`,
    // nats-server (core's) may restart under running sessions: it comes back on the same address.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    // A restarted core issues a new password and rewrites the file: keep trying (re-reading it)
    // instead of giving up after two refusals.
    ignoreAuthErrorAbort: true,
    waitOnFirstConnect: true,
    pingInterval: PING_MS,
    maxPingOut: 2,
  });
  nc = conn;
  // The state dir from the loop's arguments, or from the credentials file (a loop an older core started passes none).
  const inboxes = stateDir || first.stateDir;
  if (inboxes) serveMessages(conn, workspaceId, inboxes);
  serveCheckpoints(conn, workspaceId);
  // A connection that gives up for good ends the relay: its loop starts a new one, which says so.
  void conn.closed().then(() => process.exit(1));
  const crashes = Number(crashesArg) || 0;
  pending.unshift([hooks, JSON.stringify({ relay: { crashes, pid: process.pid, at: new Date().toISOString() } })]);
  await deliverWhenHeard(conn, hooks, pending, unheard, send, setOpen);
  connected();
  void (async () => {
    for await (const s of conn.status()) {
      if (s.type === 'disconnect') {
        open = false;
        for (const [n, [subject, payload]] of inflight) unheard.push([n, subject, payload]);
        inflight.clear();
      } else if (s.type === 'reconnect') {
        await deliverWhenHeard(conn, hooks, pending, unheard, send, setOpen);
        // Events that did not fit the wait: core hears that some were lost, as after a crash.
        if (dropped > 0) conn.publish(hooks, JSON.stringify({ relay: { crashes, dropped } }));
        dropped = 0;
      }
    }
  })();
}

const noResponders = (e: unknown): boolean =>
  typeof (e as { isNoResponders?: unknown }).isNoResponders === 'function' &&
  (e as { isNoResponders(): boolean }).isNoResponders();

/**
 * After a (re)connect, or when a send found nobody listening, waits until the hooks subject has a
 * subscriber (core, itself reconnecting after a nats-server restart, or started again after a
 * crash), then sends what waited, in order (events nobody heard first), and opens the straight
 * path. The probe is a request core answers like any event: no answer means nobody listens yet, or
 * the connection is dead (its pings end it, and the reconnect probes again).
 */
async function deliverWhenHeard(
  conn: NatsConnection,
  hooks: string,
  pending: [string, string][],
  unheard: [number, string, string][],
  send: (subject: string, payload: string) => void,
  setOpen: (open: boolean) => void,
): Promise<void> {
  for (;;) {
    try {
      await conn.request(hooks, JSON.stringify({ relay: { probe: true } }), { timeout: 1000 });
      break;
    } catch {
      // nobody listens yet, or the connection is dead (its pings will end it and a reconnect probes again)
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const again = unheard
    .splice(0)
    .sort((a, b) => a[0] - b[0])
    .map(([, s, p]): [string, string] => [s, p]);
  for (const [s, p] of [...again, ...pending.splice(0)]) send(s, p);
  setOpen(true);
}

main().catch((e: unknown) => {
  process.stderr.write(`nexus-hook-relay: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
