import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventMessage } from '../../../shared/contract';
import { testCore, coreDb } from '../../../test/helpers/core';
import type { Core } from '..';
import { operatorContext } from '../handlers';
import { insertSession } from '../../../test/helpers/session-row';

describe('attention service', () => {
  let core: Core;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ core, cleanup } = await testCore()));
  afterAll(() => cleanup());

  const nextAttentionEvent = () =>
    new Promise<EventMessage>((resolve) => {
      const sub = core.events.subscribe((e) => {
        if (e.name === 'attention.changed') {
          sub.dispose();
          resolve(e);
        }
      });
    });

  it('answers attention.get with fleet counts and review counts', async () => {
    const fleet = await core.dispatcher.call('attention.get', {}, operatorContext('http'));
    expect(fleet.counts).toEqual({
      needs_you: expect.any(Number),
      working: expect.any(Number),
      idle: expect.any(Number),
      offline: expect.any(Number),
    });
    expect(fleet.review).toEqual({ memories: 0, skills: 0 });
  });

  it('recomputes when the review queue changes and pushes attention.changed', async () => {
    const agent = core.platform.createAgent({ name: 'scribe' });
    const event = nextAttentionEvent();
    core.review.proposeMemory({
      content: 'CI runs nightly',
      scope: 'global',
      project: null,
      agentId: agent.id,
      runId: 'r1',
    });
    const e = await event;
    expect(e.payload).toMatchObject({ review: { memories: 1, skills: 0 } });
    const next = nextAttentionEvent();
    core.review.proposeSkill({
      slug: 'deploy',
      name: 'Deploy',
      description: 'How to deploy',
      markdown: '# Deploy',
      agentId: agent.id,
      runId: 'r1',
    });
    expect((await next).payload).toMatchObject({ review: { memories: 1, skills: 1 } });
  });

  it('does not push again when nothing changed', async () => {
    let pushed = 0;
    const sub = core.events.subscribe((e) => void (e.name === 'attention.changed' && pushed++));
    core.events.emit('workspaces.changed', { workspace: null, removedId: 'gone' });
    await core.attention.refresh();
    await new Promise((r) => setImmediate(r));
    sub.dispose();
    expect(pushed).toBe(0);
  });
});

describe('attention summary and session pages', () => {
  let core: Core;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ core, cleanup } = await testCore());
    // Three stopped workspaces (no container) with four sessions each, written straight into the store.
    const now = new Date().toISOString();
    coreDb(core).transaction(() => {
      for (let w = 0; w < 3; w++) {
        coreDb(core)
          .prepare(
            'INSERT INTO workspaces (id, name, repo_url, status, volume, created_at, updated_at) ' +
              "VALUES (?, ?, 'https://example.invalid/r.git', 'stopped', ?, ?, ?)",
          )
          .run(`ws-${w}`, `team-${w}`, `nexus-test-vol-${w}`, now, now);
        for (let s = 0; s < 4; s++)
          insertSession(coreDb(core), { id: `ws-${w}-s${s}`, workspace_id: `ws-${w}`, name: `s${s}` });
      }
    })();
    await core.attention.refresh();
  });
  afterAll(() => cleanup());

  it('summarises the fleet without listing every session', async () => {
    const summary = await core.dispatcher.call('attention.summary', {}, operatorContext('http'));
    expect(summary).toEqual({
      counts: { needs_you: 0, working: 0, idle: 0, offline: 12 },
      needsYou: [],
      review: { memories: 0, skills: 0 },
      workspaces: { total: 3, byStatus: { stopped: 3 }, sessions: { 'team-0': 4, 'team-1': 4, 'team-2': 4 } },
    });
  });

  it('pages through every session exactly once, then says there is no next page', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    const sizes: number[] = [];
    do {
      const page = await core.dispatcher.call('attention.sessions', { cursor, limit: 5 }, operatorContext('http'));
      expect(page.total).toBe(12);
      sizes.push(page.sessions.length);
      seen.push(...page.sessions.map((s) => s.sessionId));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(sizes).toEqual([5, 5, 2]);
    expect(new Set(seen).size).toBe(12);
    await expect(
      core.dispatcher.call('attention.sessions', { cursor: 'nope' }, operatorContext('http')),
    ).rejects.toMatchObject({ code: 'bad_request' });
  });
});
