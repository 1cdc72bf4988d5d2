import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dbSnapshot } from '../../../test/helpers/db-snapshot';
import { malformedFor, notJson } from '../../../test/helpers/malformed';
import { mintToken, rawRequest, startNexus } from '../../../test/helpers/mcp';
import { toolAccess } from './tool';
import { tools as allTools } from './tools';

/** What a token may call: an operator-class tool (set_rule) is refused to every token at the gate, before any input. */
const tools = allTools.filter((t) => toolAccess(t) !== 'operator');
import { coreDb } from '../../../test/helpers/core';

/** JSON-RPC's own refusals: parse error, invalid request, unknown method, invalid params. */
const TYPED_RPC_ERRORS = [-32700, -32600, -32601, -32602];

// Issue 17, item 6: 1,000 generated malformed requests at /api/mcp with a vault-class token (every
// tool callable): tools/call with arguments each tool's schema refuses, unknown tools, broken
// envelopes and non-JSON. Each gets a typed refusal (never an internal error), and no row changes.
describe('/api/mcp under malformed input', () => {
  let nexus: Awaited<ReturnType<typeof startNexus>>;
  let secret: string;
  beforeAll(async () => {
    nexus = await startNexus();
    secret = (await mintToken(nexus.running, 'vault')).secret;
  });
  afterAll(() => nexus?.stop());

  const send = (body: string) =>
    rawRequest(nexus.running.host.port, { path: '/api/mcp', headers: { authorization: `Bearer ${secret}` }, body });
  const call = (name: string, args: unknown) =>
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

  const toolCalls = fc
    .constantFrom(...tools)
    .chain((tool) => malformedFor(z.object(tool.input), {}).map((args) => call(tool.name, args)));
  const unknownTools = fc
    .tuple(fc.string({ maxLength: 80 }), fc.jsonValue({ maxDepth: 2 }))
    .filter(([name]) => !allTools.some((t) => t.name === name))
    .map(([name, args]) => call(name, args));
  const envelopes = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    fc
      .record(
        {
          jsonrpc: fc.constantFrom('2.0', '1.0', 2),
          id: fc.jsonValue({ maxDepth: 1 }),
          method: fc.string(),
          params: fc.jsonValue({ maxDepth: 2 }),
        },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
    notJson,
  );

  it('refuses every malformed request with a typed error and changes nothing', async () => {
    const core = nexus.running.core;
    const before = dbSnapshot(coreDb(core));
    const vault = core.vault.status();
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 4, arbitrary: toolCalls }, unknownTools, envelopes), async (body) => {
        const r = await send(body);
        const what = `${r.status} ${body.slice(0, 200)} -> ${r.text.slice(0, 300)}`;
        expect([200, 202, 400], what).toContain(r.status);
        if (r.status === 202) return; // a notification (no id): nothing to answer
        const reply = JSON.parse(r.text) as {
          error?: { code: unknown };
          result?: { isError?: boolean; content?: { text: string }[] };
        };
        // The gate's own refusals (body not JSON) are Nexus-typed; the rest are JSON-RPC's.
        if (typeof reply.error?.code === 'string') expect(reply.error.code, what).toBe('bad_request');
        else if (reply.error) expect(TYPED_RPC_ERRORS, what).toContain(reply.error.code);
        else if (reply.result?.isError !== true) expect(reply.result, what).toBeDefined();
        if (reply.result?.isError) expect(reply.result.content?.[0]?.text, what).not.toMatch(/Internal error/);
      }),
      { numRuns: 1000, seed: 17 },
    );
    expect(dbSnapshot(coreDb(core))).toEqual(before);
    expect(core.vault.status()).toEqual(vault);
    expect((await send(call('get_nexus_info', {}))).status).toBe(200);
  }, 120_000);
});
