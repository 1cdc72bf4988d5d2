import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { closeServer, listenOn, modelScript, readModelRequest, type ModelScript } from './model-script';

/**
 * The scripted stand-in for the Anthropic Messages API behind the real agent CLI (the only stand-in
 * the tests allow). Point the CLI at it with ANTHROPIC_BASE_URL=<api.url>. It answers
 * `POST /v1/messages` (streaming SSE or plain JSON) and `/v1/messages/count_tokens`, records every
 * request with its body parsed, and remembers which credential it was shown without ever putting
 * it in a record, an error or a log line.
 *
 * Conversation turns (requests that carry the CLI's tools) take their reply from the script: a
 * queue (`reply`) or a function (`onTurn`); with neither they get "OK." Side requests the CLI makes
 * on its own (title generation and the like: no tools) get a short text answer and never consume
 * the queue.
 */

/** A text block is the simplest answer; a tool_use makes the CLI run the tool (or ask) and come back. */
export type ModelReply =
  | { text: string }
  | { toolUse: { name: string; input: Record<string, unknown>; id?: string }; text?: string }
  | {
      /** A provider error: `headers` go on the answer (a 429's `retry-after`), `fields` into its `error` object. */
      error: {
        status: number;
        type: string;
        message: string;
        headers?: Record<string, string>;
        fields?: Record<string, unknown>;
      };
    };

export interface ContentBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  [k: string]: unknown;
}
export interface Message {
  role: 'user' | 'assistant';
  content: string | ContentBlock[];
}
export interface MessagesBody {
  model?: string;
  system?: string | ContentBlock[];
  messages?: Message[];
  tools?: { name: string; [k: string]: unknown }[];
  stream?: boolean;
  [k: string]: unknown;
}

export interface ModelRequest {
  /** Arrival order, from 0. */
  seq: number;
  /** When it arrived (Date.now()): the soak tells a request core's kill cut off from one it lost. */
  at: number;
  method: string;
  /** Path without the query, e.g. `/v1/messages`. */
  path: string;
  query: string;
  /** `turn`: a conversation request (has tools); `side`: one the CLI makes on its own; `count`: count_tokens; `other`. */
  kind: 'turn' | 'side' | 'count' | 'other';
  /** Headers, lower-case, without any credential header. */
  headers: Record<string, string>;
  body: MessagesBody;
  /** Which credential header carried a value (never the value). */
  auth: 'x-api-key' | 'bearer' | 'none';
}

export interface ModelApiOptions {
  /** Address to bind: a bridge network's gateway (containers reach the host there) or 127.0.0.1. */
  host?: string;
  port?: number;
}

export interface ModelApi extends ModelScript<ModelRequest> {
  /** http://<host>:<port>, for ANTHROPIC_BASE_URL. */
  url: string;
  host: string;
  port: number;
  /** The text the human side said, turn by turn, in the latest conversation request (see userTexts). */
  userTurns(): string[];
  close(): Promise<void>;
}

/**
 * The user-typed text of each user message in a conversation: text blocks that are not the CLI's own
 * `<system-reminder>` context, joined; tool results are left out (they are not turns).
 */
export function userTexts(messages: readonly Message[]): string[] {
  const out: string[] = [];
  for (const m of messages) {
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') {
      out.push(m.content);
      continue;
    }
    const texts = m.content
      .filter((b) => b.type === 'text' && typeof b.text === 'string' && !b.text.startsWith('<system-reminder>'))
      .map((b) => b.text as string);
    if (texts.length) out.push(...texts);
  }
  return out;
}

/** Starts the stand-in on an ephemeral port (unless one is given). */
export async function startModelApi(opts: ModelApiOptions = {}): Promise<ModelApi> {
  const host = opts.host ?? '127.0.0.1';
  const standIn = modelScript<ModelRequest>('the model stand-in');

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'stand-in failure' } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { raw, body, path, query, headers, auth } = await readModelRequest<MessagesBody>(req, standIn.saw);
    const isMessages = req.method === 'POST' && path === '/v1/messages';
    const kind: ModelRequest['kind'] =
      req.method === 'POST' && path === '/v1/messages/count_tokens'
        ? 'count'
        : isMessages
          ? (body.tools?.length ?? 0) > 0
            ? 'turn'
            : 'side'
          : 'other';
    const entry: ModelRequest = {
      seq: standIn.nextSeq(),
      at: Date.now(),
      method: req.method ?? '',
      path,
      query,
      kind,
      headers,
      body,
      auth,
    };

    if (kind === 'count') {
      standIn.record(entry);
      return json(res, 200, { input_tokens: Math.max(1, Math.ceil(raw.length / 4)) });
    }
    if (kind === 'other') {
      standIn.record(entry);
      return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: `no ${path} here` } });
    }
    let reply: ModelReply;
    if (kind === 'side') reply = { text: 'Nexus session' };
    else reply = await standIn.nextReply(entry);
    standIn.record(entry);
    if ('error' in reply)
      return json(
        res,
        reply.error.status,
        { type: 'error', error: { type: reply.error.type, message: reply.error.message, ...reply.error.fields } },
        reply.error.headers,
      );
    const model = body.model ?? 'claude-stand-in';
    const blocks: ContentBlock[] = [];
    if ('toolUse' in reply) {
      if (reply.text) blocks.push({ type: 'text', text: reply.text });
      blocks.push({
        type: 'tool_use',
        id: reply.toolUse.id ?? `toolu_${randomBytes(12).toString('hex')}`,
        name: reply.toolUse.name,
        input: reply.toolUse.input,
      });
    } else blocks.push({ type: 'text', text: reply.text });
    const stopReason = 'toolUse' in reply ? 'tool_use' : 'end_turn';
    const id = `msg_${randomBytes(12).toString('hex')}`;
    const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    if (!body.stream)
      return json(res, 200, {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: blocks,
        stop_reason: stopReason,
        stop_sequence: null,
        usage,
      });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (event: string, data: object): void => {
      res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
    };
    send('message_start', {
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    });
    blocks.forEach((b, index) => {
      if (b.type === 'text') {
        send('content_block_start', { index, content_block: { type: 'text', text: '' } });
        send('content_block_delta', { index, delta: { type: 'text_delta', text: b.text ?? '' } });
      } else {
        send('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
        send('content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) },
        });
      }
      send('content_block_stop', { index });
    });
    send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } });
    send('message_stop', {});
    res.end();
  }

  const port = await listenOn(server, host, opts.port);
  return {
    ...standIn.script,
    url: `http://${host}:${port}`,
    host,
    port,
    userTurns() {
      const last = standIn.script.turns().pop();
      return last ? userTexts(last.body.messages ?? []) : [];
    },
    close: closeServer(server),
  };
}

function json(res: ServerResponse, status: number, payload: object, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(payload));
}

/** Whether a conversation request is the model's next step after a tool ran (its last user block is a tool_result). */
export const isToolResult = (req: ModelRequest): boolean => {
  const last = req.body.messages?.[req.body.messages.length - 1];
  return Array.isArray(last?.content) && last.content.some((b) => b.type === 'tool_result');
};

/** Names of the tools a conversation request offered the model. */
export const toolNames = (req: ModelRequest): string[] => (req.body.tools ?? []).map((t) => t.name);
