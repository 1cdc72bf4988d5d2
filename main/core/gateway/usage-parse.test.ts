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
});
