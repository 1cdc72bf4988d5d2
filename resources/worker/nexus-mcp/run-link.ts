import { connect, jwtAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { isUserJwt } from '../nats-credential';
import { ToolReply, subjects } from '../../../shared/platform-tools';
import type { ForwardCall } from './bridge-server';
import { followCatalog } from './catalog';
import { requestsThatReconnect } from './request';

/** One run's NATS identity: what the launcher hands nexus-mcp (env.ts) or the resident server (run-file.ts). */
export interface RunIdentity {
  natsUrl: string;
  runId: string;
  user?: string | undefined;
  /** The run's bearer user JWT (core's managed server), or a plain password. */
  password?: string | undefined;
  inboxPrefix?: string | undefined;
  toolTimeoutMs: number;
}

/**
 * One run's link to core: its own NATS connection (its own user, its own inbox prefix), the
 * catalogue core gives the run, and its tool calls on tools.invoke.<runId>. The stdio nexus-mcp has
 * one; the resident server (resident-server.ts) one per session it serves, never shared.
 */
export interface RunLink {
  readonly runId: string;
  /** Forwards one platform-tool call as this run. */
  call: ForwardCall;
  /** The run's catalogue so far (null: core has not answered yet). */
  tools(): readonly string[] | null;
  /** Called with every new catalogue; returns the unsubscribe. */
  onTools(fn: (tools: readonly string[]) => void): () => void;
  /** Settles once the connection is up and the first catalogue arrived (rejects if the connection failed). */
  readonly ready: Promise<void>;
  /** Settles when the connection is gone for good (closed, or its credential was refused). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

const credential = (user: string, secret: string) =>
  isUserJwt(secret) ? { authenticator: jwtAuthenticator(secret) } : { user, pass: secret };

export function linkRun(id: RunIdentity, name: string): RunLink {
  const subject = subjects.toolsFor(id.runId);
  let nc: NatsConnection | null = null;
  let closing = false;
  let request: ReturnType<typeof requestsThatReconnect> | null = null;
  let current: readonly string[] | null = null;
  const listeners = new Set<(tools: readonly string[]) => void>();
  const ask = async (payload: string): Promise<unknown> => {
    if (!request) throw new Error('its NATS server is not reachable yet');
    return (await request(subject, payload)).json();
  };
  const offer = (tools: readonly string[]): void => {
    current = tools;
    for (const fn of listeners) fn(tools);
  };
  let gone: () => void = () => undefined;
  const closed = new Promise<void>((r) => (gone = r));
  const ready = (async () => {
    const conn = await connect({
      servers: id.natsUrl,
      ...(id.user ? credential(id.user, id.password ?? '') : {}),
      // The run may subscribe only under its own inbox prefix; the default _INBOX would be refused.
      inboxPrefix: id.inboxPrefix ?? subjects.inboxPrefixFor(id.runId),
      name,
      waitOnFirstConnect: true,
      maxReconnectAttempts: -1,
      // nats.js otherwise builds two stack-traced errors per request, in case it fails.
      noAsyncTraces: true,
    });
    nc = conn;
    void conn.closed().then(() => gone());
    if (closing) await conn.close();
    request = requestsThatReconnect(conn, id.toolTimeoutMs);
    await followCatalog(conn, id.runId, ask, offer).first;
  })();
  ready.catch(() => gone());
  return {
    runId: id.runId,
    call: async (tool, args) => ToolReply.parse(await ask(JSON.stringify({ tool, args }))),
    tools: () => current,
    onTools(fn) {
      listeners.add(fn);
      return () => void listeners.delete(fn);
    },
    ready,
    closed,
    async close() {
      closing = true;
      listeners.clear();
      await nc?.close().catch(() => undefined);
      gone();
    },
  };
}
