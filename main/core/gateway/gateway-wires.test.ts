import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatCompletionsApi, type ChatCompletionsApi } from '../../../test/helpers/chat-completions-api';
import { startGeminiApi, type GeminiApi } from '../../../test/helpers/gemini-api';
import { createLogger } from '../log';
import { Redactor } from '../redact';
import type { GatewayCaller } from './gateway-credential-store';
import { gatewayPath, GatewayServer } from './gateway-server';
import type { TokenCounts, Wire } from './usage-parse';

/**
 * The gateway's face for the wires of the ACP kinds, Gemini's generateContent and OpenAI's Chat Completions, between
 * a client doing what each CLI does and the scripted stand-ins: the session credential swapped for the real key
 * wherever the agent put it (Gemini: the x-goog-api-key header or ?key=, dropped from the URL), usage counted from
 * each wire's own answer, refusals in the provider's shape. (gateway.test.ts covers the whole ModelGateway.)
 */
const REAL = { gemini: 'AIza-real-gateway-canary-000000000000', chat: 'sk-real-chat-gateway-canary-0000000' };
const SESSION = { gemini: 'nxg_gemini-session-credential', chat: 'nxg_chat-session-credential' };

describe('the gateway on the Gemini and Chat Completions wires', () => {
  let gemini: GeminiApi;
  let chat: ChatCompletionsApi;
  let server: GatewayServer;
  let base: string;
  const counted: { agent: string; counts: TokenCounts }[] = [];
  let refuse: string | null = null;

  beforeAll(async () => {
    gemini = await startGeminiApi();
    chat = await startChatCompletionsApi();
    const callers: Record<string, GatewayCaller> = {
      [SESSION.gemini]: { sessionId: 's1', workspaceId: 'w1', agent: 'gem' },
      [SESSION.chat]: { sessionId: 's2', workspaceId: 'w1', agent: 'chat' },
    };
    const wires: Record<string, { wire: Wire; base: string; headers: (v: string) => Record<string, string> }> = {
      gem: { wire: 'google-generate', base: gemini.url, headers: (v) => ({ 'x-goog-api-key': v }) },
      chat: { wire: 'openai-chat', base: `${chat.url}/`, headers: (v) => ({ authorization: `Bearer ${v}` }) },
    };
    server = new GatewayServer(
      {
        verify: (c) => callers[c] ?? null,
        upstream: (caller) => {
          const w = wires[caller.agent]!;
          const real = caller.agent === 'gem' ? REAL.gemini : REAL.chat;
          return Promise.resolve({ wire: w.wire, base: w.base, sign: () => w.headers(real) });
        },
        refusal: () => refuse,
        counted: (caller, _id, counts) => {
          counted.push({ agent: caller.agent, counts });
          return Promise.resolve();
        },
      },
      createLogger({ redactor: new Redactor() }),
    );
    const a = await server.listen('127.0.0.1', 0);
    base = `http://127.0.0.1:${a.port}`;
  });
  afterAll(async () => {
    await server?.close();
    await gemini?.close();
    await chat?.close();
  });

  const post = (path: string, headers: Record<string, string>, body: object) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const tools = [{ functionDeclarations: [{ name: 'run_shell_command' }] }];
  const sessionSeen = () => gemini.sawCredential(SESSION.gemini) || chat.sawCredential(SESSION.chat);

  it('Gemini: the x-goog-api-key header or ?key= opens it; upstream gets only the real key as a header, no key in the URL', async () => {
    gemini.reply({ text: 'one' }, { text: 'two' });
    const streamed = await post(
      '/gem/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
      { 'x-goog-api-key': SESSION.gemini },
      { contents: [], tools },
    );
    expect(streamed.status).toBe(200);
    expect(await streamed.text()).toContain('one');
    const viaQuery = await post(
      `/gem/v1beta/models/gemini-2.5-pro:generateContent?key=${SESSION.gemini}&x=1`,
      {},
      {
        contents: [],
        tools,
      },
    );
    expect(await viaQuery.text()).toContain('two');
    const [a, b] = gemini.turns().slice(-2);
    expect(a).toMatchObject({ rpc: 'streamGenerateContent', query: 'alt=sse', auth: 'x-goog-api-key' });
    // The stand-in counts a `key` parameter as a credential it saw: only the real header reached it.
    expect(b).toMatchObject({ rpc: 'generateContent', query: 'x=1', auth: 'x-goog-api-key' });
    expect(gemini.sawCredential(REAL.gemini)).toBe(true);
    expect(sessionSeen()).toBe(false);
    // The stand-in answers 10 in, 5 out each time: counted once per answer, streamed or not.
    await expect.poll(() => counted.filter((c) => c.agent === 'gem').length).toBe(2);
    expect(counted.find((c) => c.agent === 'gem')!.counts).toEqual({
      input: 10,
      output: 5,
      cacheWrite: 0,
      cacheRead: 0,
      model: 'gemini-2.5-pro',
    });
  });

  it('Chat Completions: the bearer swapped, the usage of the stream’s last chunk counted', async () => {
    chat.reply({ toolUse: { name: 'bash', input: { command: 'ls' } } });
    const r = await post(
      '/chat/v1/chat/completions',
      { authorization: `Bearer ${SESSION.chat}` },
      {
        model: 'm',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name: 'bash' } }],
      },
    );
    const text = await r.text();
    expect(text).toContain('tool_calls');
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    expect(chat.turns().at(-1)).toMatchObject({ auth: 'bearer', path: '/v1/chat/completions' });
    expect(chat.sawCredential(REAL.chat)).toBe(true);
    expect(sessionSeen()).toBe(false);
    await expect
      .poll(() => counted.find((c) => c.agent === 'chat')?.counts)
      .toEqual({
        input: 10,
        output: 5,
        cacheWrite: 0,
        cacheRead: 0,
        model: 'm',
      });
  });

  it("refuses in each provider's shape, and takes no credential or path it should not", async () => {
    refuse = 'Budget reached in Nexus: stop.';
    const g = await post(
      '/gem/v1beta/models/m:streamGenerateContent?alt=sse',
      { 'x-goog-api-key': SESSION.gemini },
      {},
    );
    expect(g.status).toBe(400);
    expect(await g.json()).toEqual({ error: { code: 400, message: refuse, status: 'INVALID_ARGUMENT' } });
    const c = await post('/chat/v1/chat/completions', { authorization: `Bearer ${SESSION.chat}` }, {});
    expect(await c.json()).toMatchObject({ error: { message: refuse, code: 'nexus_refused' } });
    refuse = null;
    // Another kind's credential, an unknown key, no key: 401; a path that climbs out of the provider's base: 404.
    expect((await post('/gem/v1beta/models/m:generateContent', { 'x-goog-api-key': SESSION.chat }, {})).status).toBe(
      401,
    );
    expect((await post('/gem/v1beta/models/m:generateContent?key=nxg_unknown', {}, {})).status).toBe(401);
    expect((await post('/gem/v1beta/models/m:generateContent', {}, {})).status).toBe(401);
    expect(gatewayPath('/gem/v1beta/../../admin')).toBeNull();
    expect(gatewayPath('/gem/v2/models')).toBeNull();
    expect(gatewayPath('/gem/v1beta/models/m:generateContent?alt=sse&key=k')).toMatchObject({
      kind: 'gem',
      path: '/v1beta/models/m:generateContent',
    });
    expect(sessionSeen()).toBe(false);
  });
});
