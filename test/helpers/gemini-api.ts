import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { ModelReply } from './model-api';
import { closeServer, listenOn, modelScript, readModelRequest, type ModelScript } from './model-script';

/**
 * The scripted stand-in for the Gemini API (generativelanguage `v1beta`) behind the real Gemini CLI, beside
 * model-api.ts (Anthropic) and responses-api.ts (OpenAI Responses) and scripted the same way: `reply(...)` queues
 * ModelReply items for the next conversation turns, `onTurn` answers with a function, with neither a turn gets
 * "OK.". Point the CLI at it with `GOOGLE_GEMINI_BASE_URL=<api.url>` and any `GEMINI_API_KEY`. It answers
 * `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` (SSE, each event a GenerateContentResponse),
 * `:generateContent` (JSON) and `:countTokens`; a toolUse reply becomes a `functionCall` part. It records every
 * request with its body parsed and remembers which credential it was shown (the `x-goog-api-key` header or the
 * `key` query parameter) without ever putting it in a record.
 *
 * The CLI's own structured calls (its model router, the next-speaker and loop checks: `generationConfig` with
 * `responseMimeType: application/json` or a response schema) get a JSON answer built from their schema at once and
 * never consume the queue: an answer that is not JSON makes the CLI retry them for 80-100 s per turn. Requests
 * without tools get a short text (kind `side`) and never consume the queue either.
 */

export interface GeminiPart {
  text?: string;
  thought?: boolean;
  functionCall?: { name: string; args?: Record<string, unknown>; id?: string };
  functionResponse?: { name: string; response?: Record<string, unknown>; id?: string };
  [k: string]: unknown;
}
export interface GeminiContent {
  role?: string;
  parts?: GeminiPart[];
}
export interface GeminiBody {
  contents?: GeminiContent[];
  systemInstruction?: GeminiContent | string;
  tools?: { functionDeclarations?: { name: string; [k: string]: unknown }[]; [k: string]: unknown }[];
  generationConfig?: {
    responseMimeType?: string;
    responseSchema?: unknown;
    responseJsonSchema?: unknown;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

export interface GeminiRequest {
  seq: number;
  method: string;
  /** Path without the query, e.g. `/v1beta/models/gemini-2.5-pro:streamGenerateContent`. */
  path: string;
  /** The query without any `key`. */
  query: string;
  /** `turn`: a conversation request (it offers tools); `json`: a structured call; `side`: no tools; `count`; `other`. */
  kind: 'turn' | 'json' | 'side' | 'count' | 'other';
  /** The model named in the path, e.g. `gemini-2.5-pro`. */
  model: string;
  /** `streamGenerateContent`, `generateContent`, `countTokens`, … */
  rpc: string;
  /** Headers, lower-case, without any credential header. */
  headers: Record<string, string>;
  body: GeminiBody;
  /** Where the credential came: the header, the `key` query parameter, or nowhere. */
  auth: 'x-goog-api-key' | 'query-key' | 'none';
}

export interface GeminiApi extends ModelScript<GeminiRequest> {
  /** http://<host>:<port>, for GOOGLE_GEMINI_BASE_URL. */
  url: string;
  close(): Promise<void>;
}

/** The user-typed texts of a request's contents, in order (function responses are not turns). */
export function geminiUserTexts(req: Pick<GeminiRequest, 'body'>): string[] {
  const out: string[] = [];
  for (const c of req.body.contents ?? [])
    if (c.role === 'user')
      for (const p of c.parts ?? []) if (typeof p.text === 'string' && !p.functionResponse) out.push(p.text);
  return out;
}

/** The function responses in a request (what ran, or why not, for each call). */
export const geminiFunctionResponses = (
  req: Pick<GeminiRequest, 'body'>,
): NonNullable<GeminiPart['functionResponse']>[] =>
  (req.body.contents ?? []).flatMap((c) =>
    (c.parts ?? []).flatMap((p) => (p.functionResponse ? [p.functionResponse] : [])),
  );

/** Names of the functions a request offered the model. */
export const geminiToolNames = (req: Pick<GeminiRequest, 'body'>): string[] =>
  (req.body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));

/**
 * The smallest value a schema accepts: the first of an enum or a union, every property of an object (required
 * ones at least), an empty array, "", 0 (or the minimum: Gemini's numerical router wants 1 or more) or false. Types
 * may be JSON Schema's (`object`) or the Gemini API's (`OBJECT`).
 */
export function exampleOf(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object') return {};
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  if ('const' in s) return s.const;
  for (const k of ['anyOf', 'oneOf', 'allOf'])
    if (Array.isArray(s[k]) && (s[k] as unknown[]).length) return exampleOf((s[k] as unknown[])[0]);
  const type = String(Array.isArray(s.type) ? s.type[0] : (s.type ?? (s.properties ? 'object' : ''))).toLowerCase();
  if (type === 'object') {
    const props = (s.properties ?? {}) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, exampleOf(v)]));
  }
  if (type === 'array') return [];
  if (type === 'string') return '';
  if (type === 'number' || type === 'integer') {
    const min =
      typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : 0;
    return type === 'integer' ? Math.ceil(min) : min;
  }
  if (type === 'boolean') return false;
  return {};
}

export async function startGeminiApi(opts: { host?: string; port?: number } = {}): Promise<GeminiApi> {
  const host = opts.host ?? '127.0.0.1';
  const standIn = modelScript<GeminiRequest>('the Gemini stand-in');

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 500, message: 'stand-in failure', status: 'INTERNAL' } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The credential goes to `saw`, never into a record: the header, else `?key=`.
    let auth: GeminiRequest['auth'] = 'none';
    const header = req.headers['x-goog-api-key'];
    delete req.headers['x-goog-api-key'];
    if (typeof header === 'string' && header) {
      standIn.saw(header);
      auth = 'x-goog-api-key';
    }
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const key = url.searchParams.get('key');
    if (key) {
      standIn.saw(key);
      if (auth === 'none') auth = 'query-key';
    }
    url.searchParams.delete('key');
    req.url = url.pathname + url.search;
    const read = await readModelRequest<GeminiBody>(req, standIn.saw);
    const m = /\/v1(?:beta|alpha)?\/models\/([^/:]+):([A-Za-z]+)$/.exec(read.path);
    const rpc = m?.[2] ?? '';
    const generate = req.method === 'POST' && (rpc === 'streamGenerateContent' || rpc === 'generateContent');
    const config = read.body.generationConfig ?? {};
    const structured =
      config.responseMimeType === 'application/json' || !!config.responseSchema || !!config.responseJsonSchema;
    const kind: GeminiRequest['kind'] = !m
      ? 'other'
      : req.method === 'POST' && rpc === 'countTokens'
        ? 'count'
        : !generate
          ? 'other'
          : structured
            ? 'json'
            : geminiToolNames(read).length > 0
              ? 'turn'
              : 'side';
    const entry: GeminiRequest = {
      seq: standIn.nextSeq(),
      method: req.method ?? '',
      path: read.path,
      query: read.query,
      kind,
      model: m?.[1] ?? '',
      rpc,
      headers: read.headers,
      body: read.body,
      auth,
    };
    if (kind === 'other') {
      standIn.record(entry);
      return json(res, 404, { error: { code: 404, message: `no ${read.path} here`, status: 'NOT_FOUND' } });
    }
    if (kind === 'count') {
      standIn.record(entry);
      return json(res, 200, { totalTokens: Math.max(1, Math.ceil(read.raw.length / 4)) });
    }
    let parts: GeminiPart[];
    if (kind === 'json')
      parts = [{ text: JSON.stringify(exampleOf(config.responseJsonSchema ?? config.responseSchema ?? {})) }];
    else if (kind === 'side') parts = [{ text: 'Nexus session' }];
    else {
      const reply: ModelReply = await standIn.nextReply(entry);
      if ('error' in reply) {
        standIn.record(entry);
        return json(res, reply.error.status, {
          error: { code: reply.error.status, message: reply.error.message, status: reply.error.type },
        });
      }
      parts = [];
      if (reply.text) parts.push({ text: reply.text });
      if ('toolUse' in reply)
        parts.push({
          functionCall: {
            name: reply.toolUse.name,
            args: reply.toolUse.input,
            ...(reply.toolUse.id ? { id: reply.toolUse.id } : {}),
          },
        });
    }
    standIn.record(entry);
    const answer = {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      modelVersion: entry.model,
      responseId: randomBytes(8).toString('hex'),
    };
    if (rpc === 'generateContent') return json(res, 200, answer);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    // The API sends each GenerateContentResponse as one `data:` line, events apart by CRLF CRLF.
    res.write(`data: ${JSON.stringify(answer)}\r\n\r\n`);
    res.end();
  }

  const port = await listenOn(server, host, opts.port);
  return { ...standIn.script, url: `http://${host}:${port}`, close: closeServer(server) };
}

function json(res: ServerResponse, status: number, payload: object): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(payload));
}
