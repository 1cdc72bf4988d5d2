import type { ModelWire } from '../agents';

/**
 * Token counts from a provider's own answer, read as it streams past (never buffered: the gateway tees each chunk
 * here and on to the agent). One parser per answer; `done()` says what the answer reported, or null when it
 * reported nothing (an error, a cut stream).
 *  - Anthropic Messages: `message_start` carries `usage.input_tokens`, `cache_creation_input_tokens` and
 *    `cache_read_input_tokens`; `message_delta` carries the final `usage.output_tokens` (a JSON answer: `usage`).
 *  - OpenAI Responses: `response.completed` carries `response.usage` with `input_tokens`, `output_tokens` and
 *    `input_tokens_details.cached_tokens` (a JSON answer: `usage`).
 *  - Google's Generative Language API (`generateContent` / `streamGenerateContent`): each response carries
 *    `usageMetadata` (in a stream, the totals so far: the last one counts) with `promptTokenCount` (cached tokens
 *    included: `cachedContentTokenCount`),
 *    `toolUsePromptTokenCount`, `candidatesTokenCount` and `thoughtsTokenCount` (both billed as output), and
 *    `modelVersion`. Without `alt=sse` the stream is one JSON array of responses.
 *  - OpenAI Chat Completions: `usage` (`prompt_tokens`, cached ones included: `prompt_tokens_details.cached_tokens`;
 *    `completion_tokens`, reasoning included) in the JSON answer, or in a stream's last chunk (when the request asked
 *    for it: `stream_options.include_usage`; other chunks carry none or `usage: null`).
 */
export interface TokenCounts {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
  /** The model the provider says answered (its own word, for the price table). */
  model: string | null;
}

export type Wire = ModelWire;

const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

export class UsageParser {
  private buffer = '';
  private seen = false;
  private readonly counts: TokenCounts = { input: 0, output: 0, cacheWrite: 0, cacheRead: 0, model: null };
  /** A JSON (not SSE) answer is parsed whole at the end; it is small (no stream). */
  private json = '';

  constructor(
    private readonly wire: Wire,
    private readonly streaming: boolean,
  ) {}

  push(chunk: Buffer): void {
    const text = chunk.toString('utf8');
    if (!this.streaming) {
      if (this.json.length < 4 * 1024 * 1024) this.json += text;
      return;
    }
    this.buffer += text;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      if (line.startsWith('data:')) this.event(line.slice(5).trim());
    }
    // A line longer than any usage event is not one: keep memory bounded.
    if (this.buffer.length > 1024 * 1024) this.buffer = '';
  }

  done(): TokenCounts | null {
    if (!this.streaming && this.json) {
      try {
        const parsed: unknown = JSON.parse(this.json);
        // Google's stream without alt=sse: an array of responses, each with the totals so far.
        for (const body of (Array.isArray(parsed) ? parsed : [parsed]).map(obj))
          if (this.wire === 'google-generate') this.usage(obj(body.usageMetadata), body.modelVersion);
          else this.usage(obj(body.usage), body.model);
      } catch {
        // not JSON: nothing reported
      }
    }
    return this.seen ? { ...this.counts } : null;
  }

  private event(data: string): void {
    // Every wire's usage sits under a key starting "usage (`usage`, Google's `usageMetadata`): the many events without
    // one (each text delta of an answer) are not parsed.
    if (!data.startsWith('{') || !data.includes('"usage')) return;
    let e: Record<string, unknown>;
    try {
      e = obj(JSON.parse(data));
    } catch {
      return;
    }
    if (this.wire === 'anthropic-messages') {
      if (e.type === 'message_start') {
        const message = obj(e.message);
        this.usage(obj(message.usage), message.model);
      } else if (e.type === 'message_delta') {
        const u = obj(e.usage);
        if ('output_tokens' in u) {
          this.counts.output = n(u.output_tokens);
          this.seen = true;
        }
      }
    } else if (this.wire === 'google-generate') this.usage(obj(e.usageMetadata), e.modelVersion);
    else if (this.wire === 'openai-chat') this.usage(obj(e.usage), e.model);
    else if (e.type === 'response.completed') {
      const response = obj(e.response);
      this.usage(obj(response.usage), response.model);
    }
  }

  private usage(u: Record<string, unknown>, model: unknown): void {
    if (Object.keys(u).length === 0) return;
    this.seen = true;
    if (typeof model === 'string' && model) this.counts.model = model.slice(0, 100);
    if (this.wire === 'anthropic-messages') {
      this.counts.input = n(u.input_tokens);
      this.counts.cacheWrite = n(u.cache_creation_input_tokens);
      this.counts.cacheRead = n(u.cache_read_input_tokens);
      if ('output_tokens' in u) this.counts.output = Math.max(this.counts.output, n(u.output_tokens));
    } else if (this.wire === 'google-generate') {
      const cached = n(u.cachedContentTokenCount);
      // The prompt counts the cached tokens: the ledger keeps them apart. Thoughts are output the model bills.
      this.counts.input = Math.max(0, n(u.promptTokenCount) - cached) + n(u.toolUsePromptTokenCount);
      this.counts.cacheRead = cached;
      this.counts.output = n(u.candidatesTokenCount) + n(u.thoughtsTokenCount);
    } else if (this.wire === 'openai-chat') {
      const cached = n(obj(u.prompt_tokens_details).cached_tokens);
      this.counts.input = Math.max(0, n(u.prompt_tokens) - cached);
      this.counts.cacheRead = cached;
      this.counts.output = n(u.completion_tokens);
    } else {
      const cached = n(obj(u.input_tokens_details).cached_tokens);
      // Responses counts cached tokens inside input_tokens: the ledger keeps them apart.
      this.counts.input = Math.max(0, n(u.input_tokens) - cached);
      this.counts.cacheRead = cached;
      this.counts.output = n(u.output_tokens);
    }
  }
}
