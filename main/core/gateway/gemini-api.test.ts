import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exampleOf,
  geminiFunctionResponses,
  geminiToolNames,
  geminiUserTexts,
  startGeminiApi,
  type GeminiApi,
} from '../../../test/helpers/gemini-api';

/** The events of an SSE answer, parsed. */
const events = (text: string): Record<string, unknown>[] =>
  text
    .split(/\r?\n\r?\n/)
    .filter((e) => e.startsWith('data: '))
    .map((e) => JSON.parse(e.slice(6)) as Record<string, unknown>);

const tools = [{ functionDeclarations: [{ name: 'run_shell_command', parameters: { type: 'object' } }] }];

describe('the Gemini API stand-in', () => {
  let api: GeminiApi;
  beforeAll(async () => (api = await startGeminiApi()));
  afterAll(() => api.close());

  const post = (path: string, body: object, headers: Record<string, string> = {}) =>
    fetch(`${api.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('answers a streamed turn from the script: text, then a toolUse as a functionCall part, with usage', async () => {
    api.reply({ text: 'Hello.' }, { toolUse: { name: 'run_shell_command', input: { command: 'ls' } } });
    const contents = [{ role: 'user', parts: [{ text: 'hi' }] }];
    const r1 = await post(
      '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
      { contents, tools },
      {
        'x-goog-api-key': 'canary-1',
      },
    );
    expect(r1.headers.get('content-type')).toBe('text/event-stream');
    const [e1] = events(await r1.text());
    expect(e1).toMatchObject({
      candidates: [{ content: { role: 'model', parts: [{ text: 'Hello.' }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5 },
      modelVersion: 'gemini-2.5-pro',
    });
    const r2 = await post('/v1beta/models/gemini-2.5-pro:generateContent?key=canary-2', {
      contents: [
        ...contents,
        { role: 'user', parts: [{ functionResponse: { name: 'x', response: { output: 'y' } } }] },
      ],
      tools,
    });
    expect(await r2.json()).toMatchObject({
      candidates: [{ content: { parts: [{ functionCall: { name: 'run_shell_command', args: { command: 'ls' } } }] } }],
    });
    const [t1, t2] = api.turns();
    expect(t1).toMatchObject({
      kind: 'turn',
      rpc: 'streamGenerateContent',
      model: 'gemini-2.5-pro',
      auth: 'x-goog-api-key',
    });
    expect(t2).toMatchObject({ kind: 'turn', rpc: 'generateContent', auth: 'query-key', query: '' });
    expect(geminiUserTexts(t1!)).toEqual(['hi']);
    expect(geminiToolNames(t1!)).toEqual(['run_shell_command']);
    expect(geminiFunctionResponses(t2!)).toEqual([{ name: 'x', response: { output: 'y' } }]);
    expect(api.sawCredential('canary-1') && api.sawCredential('canary-2')).toBe(true);
    expect(JSON.stringify(api.requests)).not.toMatch(/canary/);
  });

  it("answers the CLI's structured calls with JSON from their schema at once, never from the script", async () => {
    api.reply({ text: 'kept for the next turn' });
    const schema = {
      type: 'object',
      properties: { reasoning: { type: 'string' }, model_choice: { type: 'string', enum: ['flash', 'pro'] } },
      required: ['reasoning', 'model_choice'],
    };
    const r = await post('/v1beta/models/gemini-2.5-flash-lite:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'route this' }] }],
      generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema },
    });
    const body = (await r.json()) as { candidates: { content: { parts: { text: string }[] } }[] };
    expect(JSON.parse(body.candidates[0]!.content.parts[0]!.text)).toEqual({ reasoning: '', model_choice: 'flash' });
    expect(api.requests.at(-1)?.kind).toBe('json');
    // The Gemini API's own schema dialect, and a request without tools: a short text.
    expect(exampleOf({ type: 'object', properties: { score: { type: 'integer', minimum: 1, maximum: 100 } } })).toEqual(
      {
        score: 1,
      },
    );
    expect(exampleOf({ type: 'OBJECT', properties: { n: { type: 'INTEGER' }, l: { type: 'ARRAY' } } })).toEqual({
      n: 0,
      l: [],
    });
    const side = await post('/v1beta/models/m:generateContent', { contents: [] });
    expect(JSON.stringify(await side.json())).toContain('Nexus session');
    const [e] = events(
      await (await post('/v1beta/models/m:streamGenerateContent?alt=sse', { contents: [], tools })).text(),
    );
    expect(JSON.stringify(e)).toContain('kept for the next turn');
  });

  it('counts tokens, answers errors in the API shape, and 404s other paths', async () => {
    const count = await post('/v1beta/models/m:countTokens', {
      contents: [{ role: 'user', parts: [{ text: 'abc' }] }],
    });
    expect(((await count.json()) as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
    api.reply({ error: { status: 429, type: 'RESOURCE_EXHAUSTED', message: 'slow down' } });
    const limited = await post('/v1beta/models/m:streamGenerateContent?alt=sse', { contents: [], tools });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ error: { code: 429, message: 'slow down', status: 'RESOURCE_EXHAUSTED' } });
    expect((await fetch(`${api.url}/v1/messages`, { method: 'POST', body: '{}' })).status).toBe(404);
    await expect(api.waitForRequest((r) => r.kind === 'other', 1000)).resolves.toMatchObject({ path: '/v1/messages' });
  });
});
