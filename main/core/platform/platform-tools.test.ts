import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { workerHostAddress } from '../../../test/helpers/network';
import { operatorContext } from '../handlers';
import { REDACTED } from '../redact';
import { okResult, platformFixture } from '../../../test/helpers/platform-fixture';
import { connectRun } from '../../../test/helpers/run-client';

type Fixture = Awaited<ReturnType<typeof platformFixture>>;
const op = operatorContext('internal');

describe('platform tools through NATS', () => {
  let f: Fixture;
  beforeEach(async () => {
    f = await platformFixture();
  });
  afterEach(async () => f.cleanup());

  it('reports the managed nats-server as running in app.info', async () => {
    const info = await f.core.dispatcher.call('app.info', {}, op);
    expect(info.nats.state).toBe('running');
    expect(info.nats.reason).toContain(`nats://${await workerHostAddress()}:`);
  });

  it('memory.propose puts a pending memory in the review queue that memory.search does not find until approved', async () => {
    const { client } = await f.run(f.agent('writer'));
    const proposed = okResult(
      await client.call('memory.propose', { content: 'Deploy with the blue-green playbook', scope: 'global' }),
    );
    expect(proposed.status).toBe('pending');
    expect(okResult(await client.call('memory.search', { query: 'playbook' })).memories).toEqual([]);

    const queue = await f.core.dispatcher.call('review.list', {}, op);
    expect(queue.memories.map((m) => m.id)).toEqual([proposed.id]);
    await f.core.dispatcher.call('review.approveMemory', { id: String(proposed.id) }, op);

    const found = okResult(await client.call('memory.search', { query: 'blue-green playbook' })).memories as {
      id: string;
      status: string;
    }[];
    expect(found.map((m) => m.id)).toEqual([proposed.id]);
    expect(found[0]?.status).toBe('active');
  });

  it('task.subtask creates a planned step under the goal that depends on the current task', async () => {
    const agent = f.agent('planner');
    const goal = f.core.platform.createTask({ title: 'ship v2' });
    const current = f.core.platform.createTask({ title: 'write migration', parentId: goal.id });
    const creds = await f.core.platform.createRun(agent.id, current.id);
    const client = await connectRun(creds);
    try {
      const sub = okResult(await client.call('task.subtask', { title: 'backfill rows' }));
      expect(sub).toMatchObject({
        status: 'planned',
        parentId: goal.id,
        dependsOn: [current.id],
        title: 'backfill rows',
      });
      expect(f.core.platform.tasks.children(goal.id).map((t) => t.id)).toContain(sub.id);
    } finally {
      await client.close();
    }
  });

  it('task.delegate creates a task ready for another agent with no dependency and the role hint', async () => {
    const { client } = await f.run(f.agent('lead'));
    const t = okResult(await client.call('task.delegate', { title: 'review the PR', roleHint: 'reviewer' }));
    expect(t).toMatchObject({ status: 'ready_for_agent', dependsOn: [], roleHint: 'reviewer' });
  });

  it("board.comment posts on the run's task card", async () => {
    const { client, creds } = await f.run(f.agent('worker'));
    const c = okResult(await client.call('board.comment', { body: 'tests are green' }));
    const run = f.core.platform.runs.get(creds.runId);
    expect(c.taskId).toBe(run?.taskId);
    expect(f.core.platform.board.forTask(String(run?.taskId)).map((x) => x.body)).toEqual(['tests are green']);
  });

  it('board.comment without a task is refused with a typed error', async () => {
    const { client } = await f.run(f.agent('loner'), { task: false });
    const reply = await client.call('board.comment', { body: 'hello' });
    expect(reply).toMatchObject({ error: { code: 'bad_request' } });
  });

  it('skill.propose stores a scanned draft; skill.list and skill.view show only approved versions', async () => {
    const { client } = await f.run(f.agent('author'));
    const draft = okResult(
      await client.call('skill.propose', {
        slug: 'release',
        name: 'Release',
        description: 'How to release',
        markdown: '# Release\nRun npm test, then tag.',
      }),
    );
    expect(draft).toMatchObject({ slug: 'release', version: 1, status: 'draft', findings: [] });
    expect(okResult(await client.call('skill.list', {})).skills).toEqual([]);
    expect(await client.call('skill.view', { slug: 'release' })).toMatchObject({
      error: { code: 'not_found' },
    });

    await f.core.dispatcher.call('review.approveSkill', { id: String(draft.id) }, op);
    expect(okResult(await client.call('skill.list', {})).skills).toEqual([
      { slug: 'release', name: 'Release', description: 'How to release', version: 1 },
    ]);
    expect(okResult(await client.call('skill.view', { slug: 'release' })).markdown).toBe(
      '# Release\nRun npm test, then tag.',
    );
  });

  it("run.search finds only the agent's own finished runs", async () => {
    const me = f.agent('me');
    const other = f.agent('other');
    const mine = await f.core.platform.createRun(me.id);
    await f.core.platform.endRun(mine.runId, 'finished', 'Fixed the flaky websocket reconnect test');
    const theirs = await f.core.platform.createRun(other.id);
    await f.core.platform.endRun(theirs.runId, 'finished', 'Also fixed a websocket issue');
    const { client, creds } = await f.run(me);
    const runs = okResult(await client.call('run.search', { query: 'websocket' })).runs as { id: string }[];
    expect(runs.map((r) => r.id)).toEqual([mine.runId]);
    expect(runs.map((r) => r.id)).not.toContain(creds.runId);
  });

  it('rejects bad arguments and unknown tools with typed errors', async () => {
    const { client } = await f.run(f.agent('sloppy'));
    expect(await client.call('memory.search', { query: '' })).toMatchObject({
      error: { code: 'bad_request' },
    });
    expect(await client.call('fs.read', {})).toMatchObject({ error: { code: 'not_found' } });
  });

  it('masks a secret canary in the reply of every handler', async () => {
    const canary = 'canary-7f3a9c1e5b';
    f.core.redactor.addSecret(canary);
    const agent = f.agent('leaky', { project: 'p1' });
    const { client } = await f.run(agent);
    const text = `note ${canary} and GITHUB_TOKEN=abcdef123456 end`;

    const replies: Record<string, unknown> = {};
    const memory = okResult(await client.call('memory.propose', { content: `zebra ${text}`, scope: 'project' }));
    replies['memory.propose'] = memory;
    await f.core.dispatcher.call('review.approveMemory', { id: String(memory.id) }, op);
    replies['memory.search'] = okResult(await client.call('memory.search', { query: 'zebra' }));
    replies['task.subtask'] = okResult(await client.call('task.subtask', { title: `step ${canary}`, body: text }));
    replies['task.delegate'] = okResult(await client.call('task.delegate', { title: `fan ${canary}`, body: text }));
    replies['board.comment'] = okResult(await client.call('board.comment', { body: text }));
    const skill = okResult(
      await client.call('skill.propose', {
        slug: 'leaky',
        name: `n ${canary}`,
        description: text,
        markdown: `# Skill\n${text}`,
      }),
    );
    replies['skill.propose'] = skill;
    await f.core.dispatcher.call('review.approveSkill', { id: String(skill.id) }, op);
    replies['skill.list'] = okResult(await client.call('skill.list', {}));
    replies['skill.view'] = okResult(await client.call('skill.view', { slug: 'leaky' }));
    const past = await f.core.platform.createRun(agent.id);
    await f.core.platform.endRun(past.runId, 'finished', `zebra run ${text}`);
    replies['run.search'] = okResult(await client.call('run.search', { query: 'zebra' }));

    expect(Object.keys(replies).sort()).toEqual([
      'board.comment',
      'memory.propose',
      'memory.search',
      'run.search',
      'skill.list',
      'skill.propose',
      'skill.view',
      'task.delegate',
      'task.subtask',
    ]);
    for (const [tool, reply] of Object.entries(replies)) {
      const json = JSON.stringify(reply);
      expect(json, tool).not.toContain(canary);
      expect(json, tool).not.toContain('abcdef123456');
    }
    expect(JSON.stringify(replies['memory.search'])).toContain(REDACTED);
    expect(JSON.stringify(replies['skill.view'])).toContain(REDACTED);
  });
});
