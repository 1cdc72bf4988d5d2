import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventMessage } from '../../../shared/contract';
import { testCore } from '../../../test/helpers/core';
import type { Core } from '..';
import { operatorContext } from '../handlers';

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
