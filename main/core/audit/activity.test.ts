import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCore } from '../../../test/helpers/core';
import type { Core } from '..';
import { operatorContext } from '../handlers';

describe('Activity: the audit log, filterable, newest first, paged', () => {
  let core: Core;
  let cleanup: () => Promise<void>;
  let tokenId = '';
  beforeAll(async () => {
    ({ core, cleanup } = await testCore());
    tokenId = (await core.tokens.create('phone script', 'read')).token.id;
    const entry = (actor: string, operation: string, outcome = 'ok', detail?: string) =>
      core.audit.record({ actor, transport: 'mcp', operation, outcome, durationMs: 3, ...(detail ? { detail } : {}) });
    for (let i = 0; i < 7; i++) entry(`token:${tokenId}`, 'mcp:get_nexus_info');
    entry(`token:${tokenId}`, 'mcp:create_session', 'forbidden');
    entry('token:oauth:grant-1', 'mcp:list_sessions', 'ok', 'session:s1');
    entry('anonymous', 'mcp:gate', 'unauthorized');
    await core.dispatcher.call('remote.status', {}, operatorContext('http'));
  });
  afterAll(() => cleanup());

  const list = (input: Record<string, unknown> = {}) =>
    core.dispatcher.call('activity.list', input as { limit: number }, operatorContext('http'));

  it('lists newest first with caller, its name, operation, target and outcome only', async () => {
    const { entries } = await list({ limit: 5 });
    expect(entries.map((e) => e.operation)).toEqual([
      'remote.status',
      'mcp:gate',
      'mcp:list_sessions',
      'mcp:create_session',
      'mcp:get_nexus_info',
    ]);
    expect(entries[3]).toMatchObject({
      caller: { kind: 'token', id: tokenId, name: 'phone script' },
      outcome: 'forbidden',
    });
    expect(entries[2]).toMatchObject({
      caller: { kind: 'connector', id: 'grant-1', name: null },
      target: 'session:s1',
    });
    expect(entries[0]?.caller).toEqual({ kind: 'operator', id: null, name: null });
    expect(Object.keys(entries[0] ?? {}).sort()).toEqual(
      ['at', 'caller', 'durationMs', 'id', 'operation', 'outcome', 'target', 'transport'].sort(),
    );
  });

  it('pages with nextBefore until the end, without repeating an entry', async () => {
    const seen: number[] = [];
    let before: number | undefined;
    for (;;) {
      const page = await list({ caller: { kind: 'token', id: tokenId }, limit: 3, ...(before ? { before } : {}) });
      seen.push(...page.entries.map((e) => e.id));
      if (page.nextBefore === null) break;
      before = page.nextBefore;
    }
    expect(seen).toHaveLength(8);
    expect(new Set(seen).size).toBe(8);
    expect([...seen].sort((a, b) => b - a)).toEqual(seen);
  });

  it('filters by caller prefix, operation prefix and outcome', async () => {
    expect((await list({ caller: { kind: 'connector' } })).entries.map((e) => e.caller.id)).toEqual(['grant-1']);
    expect((await list({ caller: { kind: 'token' } })).entries).toHaveLength(8);
    expect((await list({ caller: { kind: 'anonymous' } })).entries.map((e) => e.operation)).toEqual(['mcp:gate']);
    expect((await list({ operation: 'mcp:create' })).entries).toHaveLength(1);
    expect((await list({ outcome: 'unauthorized' })).entries.map((e) => e.caller.kind)).toEqual(['anonymous']);
    expect((await list({ operation: 'activity.list' })).entries).toEqual([]);
  });

  it('is for the operator only', async () => {
    const ctx = {
      transport: 'mcp' as const,
      caller: { kind: 'token' as const, tokenId, name: 'n', access: 'write' as const },
    };
    await expect(core.dispatcher.call('activity.list', { limit: 5 }, ctx)).rejects.toMatchObject({ code: 'forbidden' });
  });
});
