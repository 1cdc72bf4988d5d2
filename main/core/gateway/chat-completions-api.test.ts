import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chatToolNames,
  chatToolResults,
  chatUserTexts,
  startChatCompletionsApi,
  type ChatCompletionsApi,
} from '../../../test/helpers/chat-completions-api';

/** The chunks of an SSE answer, parsed, and whether it ended with `[DONE]`. */
function chunks(text: string): { chunks: Record<string, unknown>[]; done: boolean } {
  const data = text
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice(6));
  return {
    chunks: data.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d) as Record<string, unknown>),
    done: data.at(-1) === '[DONE]',
  };
}

type Delta = {
  content?: string;
  tool_calls?: { index: number; id?: string; function: { name?: string; arguments: string } }[];
};

const tools = [{ type: 'function', function: { name: 'bash', parameters: { type: 'object' } } }];

describe('the Chat Completions stand-in', () => {
  let api: ChatCompletionsApi;
  beforeAll(async () => (api = await startChatCompletionsApi()));
  afterAll(() => api.close());

  const post = (body: object, key = 'sk-canary') =>
    fetch(`${api.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });

  it('streams a scripted tool call as tool_calls deltas a client joins by index, then the finish, usage and [DONE]', async () => {
    api.reply({ text: 'Running it.', toolUse: { name: 'bash', input: { command: 'touch /tmp/x' } } });
    const messages = [{ role: 'user', content: 'make x' }];
    const r = await post({ model: 'm1', messages, tools, stream: true });
    const { chunks: all, done } = chunks(await r.text());
    expect(done).toBe(true);
    const deltas = all.flatMap((c) => (c.choices as { delta: Delta }[]).map((ch) => ch.delta));
    expect(deltas.map((d) => d.content ?? '').join('')).toBe('Running it.');
    const calls = deltas.flatMap((d) => d.tool_calls ?? []);
    expect(calls[0]).toMatchObject({ index: 0, function: { name: 'bash' } });
    expect(JSON.parse(calls.map((c) => c.function.arguments).join(''))).toEqual({ command: 'touch /tmp/x' });
    const finishes = all.flatMap((c) =>
      (c.choices as { finish_reason: string | null }[]).map((ch) => ch.finish_reason),
    );
    expect(finishes.filter(Boolean)).toEqual(['tool_calls']);
    expect(all.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 5 } });
    const turn = api.turns()[0]!;
    expect(turn).toMatchObject({ kind: 'turn', auth: 'bearer' });
    expect(chatUserTexts(turn)).toEqual(['make x']);
    expect(chatToolNames(turn)).toEqual(['bash']);
    expect(api.sawCredential('sk-canary')).toBe(true);
    expect(JSON.stringify(api.requests)).not.toContain('sk-canary');
  });

  it('answers without streaming as one chat.completion, with the tool results it was sent on record', async () => {
    api.reply({ text: 'Done.' });
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'denied' },
    ];
    const r = await post({ model: 'm1', messages, tools });
    expect(await r.json()).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { role: 'assistant', content: 'Done.' }, finish_reason: 'stop' }],
      usage: { total_tokens: 15 },
    });
    expect(chatToolResults(api.turns().at(-1)!)).toEqual([{ id: 'c1', text: 'denied' }]);
  });

  it('answers side and structured requests and the model list without taking from the script', async () => {
    api.reply({ text: 'for the turn' });
    const title = await post({ model: 'small', messages: [{ role: 'user', content: 'title?' }] });
    expect(JSON.stringify(await title.json())).toContain('Nexus session');
    const schema = { type: 'object', properties: { next_speaker: { type: 'string', enum: ['user', 'model'] } } };
    const structured = await post({ messages: [], response_format: { type: 'json_schema', json_schema: { schema } } });
    const content = ((await structured.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message
      .content;
    expect(JSON.parse(content)).toEqual({ next_speaker: 'user' });
    const models = await fetch(`${api.url}/v1/models`);
    expect(((await models.json()) as { data: unknown[] }).data).toHaveLength(1);
    const turn = await post({ messages: [], tools });
    expect(JSON.stringify(await turn.json())).toContain('for the turn');
    expect(api.requests.map((r) => r.kind).slice(-4)).toEqual(['side', 'json', 'models', 'turn']);
    api.reply({ error: { status: 401, type: 'invalid_api_key', message: 'no' } });
    expect((await post({ messages: [], tools })).status).toBe(401);
  });
});
