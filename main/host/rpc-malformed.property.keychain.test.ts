import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opNames, operations } from '../../shared/contract';
import { dbSnapshot } from '../../test/helpers/db-snapshot';
import { malformedFor, notJson } from '../../test/helpers/malformed';
import { startNexus } from '../../test/helpers/mcp';
import { coreDb } from '../../test/helpers/core';

// Issue 17, item 6: 1,000 generated malformed inputs at /api/rpc/<op>, spread over every
// operation: each is refused with a typed bad_request, core keeps answering, and no row changes.
describe('/api/rpc under malformed input', () => {
  let nexus: Awaited<ReturnType<typeof startNexus>>;
  beforeAll(async () => {
    nexus = await startNexus();
  });
  afterAll(() => nexus?.stop());

  const post = async (op: string, body: string) => {
    const res = await fetch(`${nexus.running.host.url}/api/rpc/${op}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${nexus.running.host.token}`, 'content-type': 'application/json' },
      body,
    });
    return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
  };

  it('refuses every malformed input with a typed error and changes nothing', async () => {
    const core = nexus.running.core;
    const before = dbSnapshot(coreDb(core));
    const vault = core.vault.status();
    const input = fc.constantFrom(...opNames).chain((op) =>
      fc.record({
        op: fc.constant(op),
        body: fc.oneof(
          { weight: 4, arbitrary: malformedFor(operations[op].input, {}).map((v) => JSON.stringify(v ?? null)) },
          { weight: 1, arbitrary: notJson },
        ),
      }),
    );
    await fc.assert(
      fc.asyncProperty(input, async ({ op, body }) => {
        const r = await post(op, body);
        expect(r.status, `${op} ${body.slice(0, 200)}`).toBe(400);
        expect(r.body.error?.code, `${op} ${body.slice(0, 200)}`).toBe('bad_request');
        expect(typeof r.body.error?.message).toBe('string');
      }),
      { numRuns: 1000, seed: 17 },
    );
    expect(dbSnapshot(coreDb(core))).toEqual(before);
    expect(core.vault.status()).toEqual(vault);
    expect((await post('app.info', '{}')).status).toBe(200);
  }, 120_000);
});
