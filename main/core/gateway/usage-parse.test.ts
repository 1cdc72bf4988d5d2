import { describe, expect, it } from 'vitest';
import { UsageParser } from './usage-parse';

const sse = (events: Record<string, unknown>[]): string =>
  events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');

/** Feeds `text` in chunks of `size` bytes (splitting lines and UTF-8 anywhere), as a socket may. */
function parse(parser: UsageParser, text: string, size: number) {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) parser.push(bytes.subarray(i, i + size));
  return parser.done();
}

describe('usage from the providers’ own answers', () => {
  const anthropic = sse([
    {
      type: 'message_start',
      message: {
        model: 'claude-test',
        usage: { input_tokens: 120, cache_creation_input_tokens: 30, cache_read_input_tokens: 400, output_tokens: 1 },
      },
    },
    { type: 'content_block_delta', delta: { type: 'text_delta', text: 'ünïcødé 漢字' } },
    { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 57 } },
    { type: 'message_stop' },
  ]);

  it('reads an Anthropic stream however it is cut: input and cache at the start, output at the end', () => {
    for (const size of [1, 7, 64, 100_000])
      expect(parse(new UsageParser('anthropic-messages', true), anthropic, size)).toEqual({
        input: 120,
        output: 57,
        cacheWrite: 30,
        cacheRead: 400,
        model: 'claude-test',
      });
  });

  it('reads an OpenAI Responses stream, keeping cached input apart from the rest', () => {
    const text = sse([
      { type: 'response.created', response: { id: 'r1' } },
      { type: 'response.output_text.delta', delta: 'hi' },
      {
        type: 'response.completed',
        response: {
          id: 'r1',
          model: 'gpt-test',
          usage: { input_tokens: 500, input_tokens_details: { cached_tokens: 200 }, output_tokens: 42 },
        },
      },
    ]);
    for (const size of [3, 1000])
      expect(parse(new UsageParser('openai-responses', true), text, size)).toEqual({
        input: 300,
        output: 42,
        cacheWrite: 0,
        cacheRead: 200,
        model: 'gpt-test',
      });
  });

  it('reads a JSON answer, and reports nothing for an answer with no usage or a cut stream', () => {
    const json = JSON.stringify({ model: 'm', usage: { input_tokens: 5, output_tokens: 6 } });
    expect(parse(new UsageParser('anthropic-messages', false), json, 4)).toMatchObject({ input: 5, output: 6 });
    expect(parse(new UsageParser('anthropic-messages', false), '{"error":{}}', 4)).toBeNull();
    const cut = anthropic.slice(0, anthropic.indexOf('data:') + 20);
    expect(parse(new UsageParser('anthropic-messages', true), cut, 10)).toBeNull();
    // Hostile numbers are not counted as tokens.
    const bad = sse([{ type: 'response.completed', response: { usage: { input_tokens: -5, output_tokens: 'x' } } }]);
    expect(parse(new UsageParser('openai-responses', true), bad, 9)).toMatchObject({ input: 0, output: 0 });
  });

  it('reads a Gemini stream (SSE, CRLF apart) however it is cut: the last usageMetadata, cached input apart, thoughts as output', () => {
    const chunk = (usageMetadata: Record<string, number>, text: string) =>
      `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text }] } }], usageMetadata, modelVersion: 'gemini-test' })}\r\n\r\n`;
    const text =
      chunk({ promptTokenCount: 900, totalTokenCount: 900 }, 'ünï') +
      chunk(
        {
          promptTokenCount: 900,
          cachedContentTokenCount: 600,
          toolUsePromptTokenCount: 7,
          candidatesTokenCount: 40,
          thoughtsTokenCount: 25,
          totalTokenCount: 972,
        },
        '漢字',
      );
    for (const size of [1, 5, 77, 100_000])
      expect(parse(new UsageParser('google-generate', true), text, size)).toEqual({
        input: 307,
        output: 65,
        cacheWrite: 0,
        cacheRead: 600,
        model: 'gemini-test',
      });
    // generateContent's JSON, and streamGenerateContent without alt=sse (one JSON array of responses).
    const one = { usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 3 }, modelVersion: 'g' };
    expect(parse(new UsageParser('google-generate', false), JSON.stringify(one), 3)).toMatchObject({
      input: 12,
      output: 3,
    });
    const array = [{ usageMetadata: { promptTokenCount: 12 } }, one];
    expect(parse(new UsageParser('google-generate', false), JSON.stringify(array), 8)).toMatchObject({
      input: 12,
      output: 3,
    });
    expect(parse(new UsageParser('google-generate', true), 'data: {"candidates":[]}\r\n\r\n', 4)).toBeNull();
  });

  it('reads a Chat Completions stream from its last chunk (usage null before it, [DONE] after), and a JSON answer', () => {
    const chunk = (c: Record<string, unknown>) =>
      `data: ${JSON.stringify({ object: 'chat.completion.chunk', model: 'chat-test', ...c })}\n\n`;
    const text =
      chunk({ choices: [{ index: 0, delta: { content: 'hé' } }], usage: null }) +
      chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: null }) +
      chunk({
        choices: [],
        usage: { prompt_tokens: 300, completion_tokens: 21, prompt_tokens_details: { cached_tokens: 256 } },
      }) +
      'data: [DONE]\n\n';
    for (const size of [2, 33, 100_000])
      expect(parse(new UsageParser('openai-chat', true), text, size)).toEqual({
        input: 44,
        output: 21,
        cacheWrite: 0,
        cacheRead: 256,
        model: 'chat-test',
      });
    const json = JSON.stringify({ model: 'c', usage: { prompt_tokens: 9, completion_tokens: 4 } });
    expect(parse(new UsageParser('openai-chat', false), json, 5)).toMatchObject({ input: 9, output: 4, cacheRead: 0 });
    // A stream whose request did not ask for usage reports nothing.
    expect(
      parse(
        new UsageParser('openai-chat', true),
        text.split('data: {"object":"chat.completion.chunk","model":"chat-test","choices":[],')[0]!,
        9,
      ),
    ).toBeNull();
  });
});
