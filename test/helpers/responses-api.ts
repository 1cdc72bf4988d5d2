import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { ModelReply } from './model-api';
import { closeServer, listenOn, modelScript, readModelRequest, type ModelScript } from './model-script';

/**
 * The scripted stand-in for the OpenAI Responses API behind the real Codex CLI, beside model-api.ts (the
 * Anthropic one) and scripted the same way: `reply(...)` queues ModelReply items for the next conversation turns,
 * `onTurn` answers with a function, with neither a turn gets "OK.". Point Codex at it with a
 * `[model_providers.<name>]` whose `base_url` is `<api.url>/v1` and `wire_api = "responses"`. It answers only
 * `POST /v1/responses` with SSE (measured on 0.169.0: `response.created`, the output items, `response.completed`),
 * records every request with its body parsed and remembers which bearer credential it was shown without ever
 * putting it in a record. The TUI's thread-title request (`x-codex-turn-metadata` thread_source `thread_title`)
 * gets a short text and never consumes the queue.
 */

export interface ResponsesItem {
  type: string;
  role?: string;
  content?: unknown;
  call_id?: string;
  name?: string;
  arguments?: string;
  output?: unknown;
  [k: string]: unknown;
}
export interface ResponsesBody {
  model?: string;
  instructions?: string;
  input?: ResponsesItem[];
  tools?: { name?: string; type?: string; [k: string]: unknown }[];
  stream?: boolean;
  [k: string]: unknown;
}

export interface ResponsesRequest {
  seq: number;
  method: string;
  path: string;
  /** `turn`: a conversation request; `side`: the thread title; `other`: anything else (answered 404). */
  kind: 'turn' | 'side' | 'other';
  /** Headers, lower-case, without the credential header. */
  headers: Record<string, string>;
  /** `x-codex-turn-metadata`, parsed ({} when absent). */
  turnMetadata: { thread_source?: string; turn_trigger?: string; [k: string]: unknown };
  body: ResponsesBody;
  auth: 'x-api-key' | 'bearer' | 'none';
}

export interface ResponsesApi extends ModelScript<ResponsesRequest> {
  /** Answers side requests (the thread title) with `fn` when it gives a reply (a provider's limit refuses them too). */
  onSide(fn: ((req: ResponsesRequest) => ModelReply | null) | null): void;
  /** http://<host>:<port> (the provider's base_url is this + `/v1`). */
  url: string;
  close(): Promise<void>;
}

/** The user-typed texts of a request's input, in order (Codex's own context messages, in `<…>` tags, left out). */
export function userInputTexts(input: readonly ResponsesItem[] = []): string[] {
  const out: string[] = [];
  for (const item of input) {
    if (item.type !== 'message' || item.role !== 'user') continue;
    const parts = Array.isArray(item.content) ? (item.content as { type?: string; text?: string }[]) : [];
    for (const p of parts)
      if (p.type === 'input_text' && typeof p.text === 'string' && !/^<[a-z_]+[\s>]/.test(p.text)) out.push(p.text);
  }
  return out;
}

/** The `function_call_output` items of a request (what ran, or why not, for each call). */
export const functionOutputs = (req: ResponsesRequest): ResponsesItem[] =>
  (req.body.input ?? []).filter((i) => i.type === 'function_call_output');

/**
 * The Nexus session a Codex request comes from: its turn metadata names the session's worktree
 * (`…/.nexus-worktrees/<session name>`); null when it names none.
 */
export function sessionNameOf(req: ResponsesRequest): string | null {
  const dirs = Object.keys((req.turnMetadata.workspaces as Record<string, unknown> | undefined) ?? {});
  return dirs.map((d) => /\/\.nexus-worktrees\/([^/]+)$/.exec(d)?.[1]).find(Boolean) ?? null;
}

export const responseToolNames = (req: ResponsesRequest): string[] =>
  (req.body.tools ?? []).map((t) => t.name ?? t.type ?? '');

export async function startResponsesApi(opts: { host?: string; port?: number } = {}): Promise<ResponsesApi> {
  const host = opts.host ?? '127.0.0.1';
  const standIn = modelScript<ResponsesRequest>('the Responses stand-in');
  let side: ((req: ResponsesRequest) => ModelReply | null) | null = null;

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'server_error', message: 'stand-in failure' } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { body, path, headers, auth } = await readModelRequest<ResponsesBody>(req, standIn.saw);
    let turnMetadata: ResponsesRequest['turnMetadata'] = {};
    try {
      turnMetadata = JSON.parse(headers['x-codex-turn-metadata'] ?? '{}') as typeof turnMetadata;
    } catch {
      turnMetadata = {};
    }
    const kind: ResponsesRequest['kind'] =
      req.method === 'POST' && path === '/v1/responses'
        ? turnMetadata.thread_source === 'thread_title' || (body.tools?.length ?? 0) === 0
          ? 'side'
          : 'turn'
        : 'other';
    const entry: ResponsesRequest = {
      seq: standIn.nextSeq(),
      method: req.method ?? '',
      path,
      kind,
      headers,
      turnMetadata,
      body,
      auth,
    };
    if (kind === 'other') {
      standIn.record(entry);
      res.writeHead(404, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: { type: 'not_found', message: `no ${path} here` } }));
    }
    let reply: ModelReply;
    if (kind === 'side') reply = side?.(entry) ?? { text: 'Nexus session' };
    else reply = await standIn.nextReply(entry);
    standIn.record(entry);
    if ('error' in reply) {
      res.writeHead(reply.error.status, { 'content-type': 'application/json', ...reply.error.headers });
      const error = { type: reply.error.type, message: reply.error.message, ...reply.error.fields };
      return void res.end(JSON.stringify({ error }));
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const id = `resp_${randomBytes(12).toString('hex')}`;
    let seq = 0;
    const send = (data: Record<string, unknown>): void => {
      res.write(`event: ${String(data.type)}\ndata: ${JSON.stringify({ ...data, sequence_number: seq++ })}\n\n`);
    };
    send({ type: 'response.created', response: { id, status: 'in_progress', output: [] } });
    let index = 0;
    const text = 'toolUse' in reply ? reply.text : reply.text;
    if (text) {
      const msgId = `msg_${randomBytes(8).toString('hex')}`;
      const item = { type: 'message', id: msgId, role: 'assistant', status: 'completed', content: [] as unknown[] };
      send({ type: 'response.output_item.added', output_index: index, item: { ...item, status: 'in_progress' } });
      send({ type: 'response.output_text.delta', output_index: index, content_index: 0, item_id: msgId, delta: text });
      send({
        type: 'response.output_item.done',
        output_index: index,
        item: { ...item, content: [{ type: 'output_text', text, annotations: [] }] },
      });
      index++;
    }
    if ('toolUse' in reply) {
      const callId = reply.toolUse.id ?? `call_${randomBytes(8).toString('hex')}`;
      // An MCP tool is offered inside a `namespace` tool (`mcp__<server>`, Codex's own `mcp__codex_tui` and
      // `multi_agent_v1` too); a call names both.
      const ns = /^(mcp__[A-Za-z0-9_-]+?|multi_agent_v1)__(.+)$/.exec(reply.toolUse.name);
      send({
        type: 'response.output_item.done',
        output_index: index,
        item: {
          type: 'function_call',
          id: `fc_${randomBytes(8).toString('hex')}`,
          call_id: callId,
          ...(ns ? { namespace: ns[1], name: ns[2] } : { name: reply.toolUse.name }),
          arguments: JSON.stringify(reply.toolUse.input),
          status: 'completed',
        },
      });
    }
    send({
      type: 'response.completed',
      response: {
        id,
        status: 'completed',
        usage: {
          input_tokens: 10,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 5,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 15,
        },
      },
    });
    res.end();
  }

  const port = await listenOn(server, host, opts.port);
  return {
    ...standIn.script,
    onSide: (fn) => void (side = fn),
    url: `http://${host}:${port}`,
    close: closeServer(server),
  };
}
