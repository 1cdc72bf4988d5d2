import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { ModelReply } from './model-api';
import { exampleOf } from './gemini-api';
import { closeServer, listenOn, modelScript, readModelRequest, type ModelScript } from './model-script';

/**
 * The scripted stand-in for the OpenAI Chat Completions API behind the agent CLIs that speak it (OpenCode through
 * `@ai-sdk/openai-compatible`, Qwen Code), beside model-api.ts and responses-api.ts and scripted the same way:
 * `reply(...)` queues ModelReply items for the next conversation turns, `onTurn` answers with a function, with
 * neither a turn gets "OK.". Point a CLI at `<api.url>/v1`. It answers `POST /v1/chat/completions`, streaming (SSE
 * `chat.completion.chunk`s: the role, the text, a toolUse reply as `tool_calls` deltas, the finish reason, a last
 * chunk with `usage` and no choices, then `data: [DONE]`) or as one JSON `chat.completion`, and `GET /v1/models`.
 * It records every request with its body parsed and remembers which bearer credential it was shown without ever
 * putting it in a record. Requests without tools (titles, summaries) get a short text, and a `response_format`
 * json_schema request a JSON answer built from its schema; neither consumes the queue.
 */

export interface ChatMessage {
  role: string;
  content?: string | { type: string; text?: string; [k: string]: unknown }[] | null;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  [k: string]: unknown;
}
export interface ChatBody {
  model?: string;
  messages?: ChatMessage[];
  tools?: { type?: string; function?: { name: string; [k: string]: unknown }; [k: string]: unknown }[];
  stream?: boolean;
  response_format?: { type?: string; json_schema?: { schema?: unknown; [k: string]: unknown } };
  [k: string]: unknown;
}

export interface ChatRequest {
  seq: number;
  method: string;
  path: string;
  /** `turn`: a conversation request (it offers tools); `json`: a structured call; `side`: no tools; `models`; `other`. */
  kind: 'turn' | 'json' | 'side' | 'models' | 'other';
  /** Headers, lower-case, without the credential header. */
  headers: Record<string, string>;
  body: ChatBody;
  auth: 'x-api-key' | 'bearer' | 'none';
}

export interface ChatCompletionsApi extends ModelScript<ChatRequest> {
  /** http://<host>:<port> (a CLI's base URL is this + `/v1`). */
  url: string;
  close(): Promise<void>;
}

const textOf = (content: ChatMessage['content']): string[] =>
  typeof content === 'string'
    ? [content]
    : (content ?? []).flatMap((p) => (p.type === 'text' && typeof p.text === 'string' ? [p.text] : []));

/** The user messages' texts of a request, in order. */
export const chatUserTexts = (req: Pick<ChatRequest, 'body'>): string[] =>
  (req.body.messages ?? []).filter((m) => m.role === 'user').flatMap((m) => textOf(m.content));

/** The tool results of a request (role `tool`): what ran, or why not, for each call. */
export const chatToolResults = (req: Pick<ChatRequest, 'body'>): { id: string; text: string }[] =>
  (req.body.messages ?? [])
    .filter((m) => m.role === 'tool')
    .map((m) => ({ id: m.tool_call_id ?? '', text: textOf(m.content).join('') }));

/** Names of the tools a request offered the model. */
export const chatToolNames = (req: Pick<ChatRequest, 'body'>): string[] =>
  (req.body.tools ?? []).map((t) => t.function?.name ?? t.type ?? '');

export async function startChatCompletionsApi(
  opts: { host?: string; port?: number } = {},
): Promise<ChatCompletionsApi> {
  const host = opts.host ?? '127.0.0.1';
  const standIn = modelScript<ChatRequest>('the Chat Completions stand-in');

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'server_error', message: 'stand-in failure' } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { body, path, headers, auth } = await readModelRequest<ChatBody>(req, standIn.saw);
    const schema = body.response_format?.json_schema?.schema;
    const kind: ChatRequest['kind'] =
      req.method === 'GET' && path === '/v1/models'
        ? 'models'
        : req.method !== 'POST' || path !== '/v1/chat/completions'
          ? 'other'
          : body.response_format?.type === 'json_schema' || body.response_format?.type === 'json_object'
            ? 'json'
            : chatToolNames({ body }).length > 0
              ? 'turn'
              : 'side';
    const entry: ChatRequest = { seq: standIn.nextSeq(), method: req.method ?? '', path, kind, headers, body, auth };
    const model = body.model ?? 'stand-in-model';
    if (kind === 'models') {
      standIn.record(entry);
      return json(res, 200, { object: 'list', data: [{ id: 'stand-in-model', object: 'model', owned_by: 'nexus' }] });
    }
    if (kind === 'other') {
      standIn.record(entry);
      return json(res, 404, { error: { type: 'not_found', message: `no ${path} here` } });
    }
    let reply: ModelReply;
    if (kind === 'json') reply = { text: JSON.stringify(exampleOf(schema ?? {})) };
    else if (kind === 'side') reply = { text: 'Nexus session' };
    else reply = await standIn.nextReply(entry);
    standIn.record(entry);
    if ('error' in reply)
      return json(res, reply.error.status, {
        error: { type: reply.error.type, message: reply.error.message, code: reply.error.type },
      });
    const id = `chatcmpl-${randomBytes(12).toString('hex')}`;
    const created = Math.floor(Date.now() / 1000);
    const call =
      'toolUse' in reply
        ? {
            id: reply.toolUse.id ?? `call_${randomBytes(8).toString('hex')}`,
            type: 'function',
            function: { name: reply.toolUse.name, arguments: JSON.stringify(reply.toolUse.input) },
          }
        : null;
    const text = reply.text ?? '';
    const finish = call ? 'tool_calls' : 'stop';
    const usage = {
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
      prompt_tokens_details: { cached_tokens: 0 },
    };
    if (!body.stream)
      return json(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: text || null, ...(call ? { tool_calls: [call] } : {}) },
            finish_reason: finish,
          },
        ],
        usage,
      });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): void =>
      void res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`,
      );
    chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
    if (text) chunk([{ index: 0, delta: { content: text }, finish_reason: null }]);
    if (call) {
      // The call's name and id first, its arguments in two pieces: clients join the deltas by `index`.
      const args = call.function.arguments;
      const half = Math.floor(args.length / 2);
      chunk([
        {
          index: 0,
          delta: {
            tool_calls: [
              { index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
            ],
          },
          finish_reason: null,
        },
      ]);
      for (const piece of [args.slice(0, half), args.slice(half)])
        chunk([
          { index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: piece } }] }, finish_reason: null },
        ]);
    }
    chunk([{ index: 0, delta: {}, finish_reason: finish }]);
    chunk([], { usage });
    res.write('data: [DONE]\n\n');
    res.end();
  }

  const port = await listenOn(server, host, opts.port);
  return { ...standIn.script, url: `http://${host}:${port}`, close: closeServer(server) };
}

function json(res: ServerResponse, status: number, payload: object): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(payload));
}
