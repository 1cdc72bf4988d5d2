import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ModelReply } from './model-api';

/** What every recorded request of a model stand-in carries. */
export interface RecordedRequest {
  /** Arrival order, from 0. */
  seq: number;
  kind: string;
  method: string;
  path: string;
}

/** How a test scripts a model stand-in and reads what it was asked: the same for the Anthropic and OpenAI ones. */
export interface ModelScript<R extends RecordedRequest> {
  /** Every request so far, in arrival order. */
  readonly requests: readonly R[];
  /** Conversation requests only (kind `turn`). */
  turns(): R[];
  /** Queues replies for the next conversation requests, in order. */
  reply(...replies: ModelReply[]): void;
  /** Answers conversation requests with a function instead (the queue is used first while it has items). */
  onTurn(fn: ((req: R) => ModelReply | Promise<ModelReply>) | null): void;
  /** Resolves with the first request (past or future) that matches. */
  waitForRequest(predicate: (req: R) => boolean, timeoutMs?: number): Promise<R>;
  /** Whether any request carried exactly this credential. */
  sawCredential(value: string): boolean;
}

/**
 * The record and the script behind a stand-in (`name` says which in a timeout's message). The stand-in records each
 * request (`record`), notes each credential it saw (`saw`) and takes the reply to a conversation request from
 * `nextReply`: the queue first, then the `onTurn` function, else "OK.".
 */
export function modelScript<R extends RecordedRequest>(name: string) {
  const requests: R[] = [];
  const queue: ModelReply[] = [];
  let fn: ((req: R) => ModelReply | Promise<ModelReply>) | null = null;
  const seen = new Set<string>();
  const waiters: { predicate: (r: R) => boolean; resolve: (r: R) => void }[] = [];
  const script: ModelScript<R> = {
    requests,
    turns: () => requests.filter((r) => r.kind === 'turn'),
    reply: (...replies) => void queue.push(...replies),
    onTurn: (f) => void (fn = f),
    waitForRequest(predicate, timeoutMs = 60_000) {
      const found = requests.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const w = {
          predicate,
          resolve: (r: R) => {
            clearTimeout(timer);
            resolve(r);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          const kinds = requests.map((r) => `${r.kind} ${r.method} ${r.path}`).join('; ');
          reject(new Error(`${name} saw no matching request within ${timeoutMs} ms (saw: ${kinds || 'none'})`));
        }, timeoutMs);
        waiters.push(w);
      });
    },
    sawCredential: (value) => seen.has(value),
  };
  return {
    script,
    /** The next request's `seq`. */
    nextSeq: () => requests.length,
    record(req: R): void {
      requests.push(req);
      for (const w of [...waiters]) {
        if (w.predicate(req)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(req);
        }
      }
    },
    saw: (credential: string) => void seen.add(credential),
    nextReply: async (req: R): Promise<ModelReply> => queue.shift() ?? (fn ? await fn(req) : { text: 'OK.' }),
  };
}

/** Listens on host:port (0: any free port) and resolves with the port. */
export async function listenOn(server: Server, host: string, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** Closes the server and every connection still open to it. */
export const closeServer = (server: Server) => (): Promise<void> =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** A request as a stand-in reads it: the body parsed ({} when it is not JSON), the credential taken out. */
export interface ReadRequest<B> {
  raw: string;
  body: B;
  /** Path without the query, e.g. `/v1/messages`. */
  path: string;
  query: string;
  /** Headers, lower-case, without any credential header. */
  headers: Record<string, string>;
  /** Which credential header carried a value (never the value: that goes to `saw`). */
  auth: 'x-api-key' | 'bearer' | 'none';
}

export async function readModelRequest<B extends object>(
  req: IncomingMessage,
  saw: (credential: string) => void,
): Promise<ReadRequest<B>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  let body = {} as B;
  try {
    if (raw) body = JSON.parse(raw) as B;
  } catch {
    body = {} as B;
  }
  const [path = '/', query = ''] = (req.url ?? '/').split('?', 2);
  const headers: Record<string, string> = {};
  let auth: ReadRequest<B>['auth'] = 'none';
  for (const [k, v] of Object.entries(req.headers)) {
    const value = Array.isArray(v) ? v.join(', ') : (v ?? '');
    const bearer = k === 'authorization' ? /^Bearer\s+(.+)$/i.exec(value)?.[1]?.trim() : undefined;
    if (k === 'x-api-key' && value) {
      saw(value);
      auth = 'x-api-key';
    } else if (bearer) {
      saw(bearer);
      auth = 'bearer';
    } else if (k !== 'x-api-key' && k !== 'authorization') headers[k] = value;
  }
  return { raw, body, path, query, headers, auth };
}
