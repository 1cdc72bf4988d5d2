import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '..';
import { coreDb, vaultCore } from '../../../test/helpers/core';
import { startGitHubIssuesStandin, type GitHubIssuesStandin } from '../../../test/helpers/github-issues-standin';
import { okResult } from '../../../test/helpers/platform-fixture';
import { connectRun, type RunClient } from '../../../test/helpers/run-client';
import { asOperator, trackedTask } from '../../../test/helpers/tracker-fixture';
import { waitFor } from '../../../test/helpers/wait';
import { createMcpServer } from '../mcp/server';
import { GitHubTracker } from './github';

/**
 * The GitHub Issues adapter against a stand-in of exactly the REST endpoints it calls (test/helpers/
 * github-issues-standin.ts, GitHub's documented shapes): comments mirrored with their remote ids, issues read and
 * linked (over MCP too), the status as open/closed, issues picked up by label, and the outbox exactly-once when
 * answers are lost and the API answers 503.
 */
describe('the board mirrored on GitHub Issues (a stand-in of the endpoints used)', () => {
  let gh: GitHubIssuesStandin;
  let core: Core;
  let cleanup: () => Promise<void>;
  const clients: RunClient[] = [];

  beforeAll(async () => {
    [gh, { core, cleanup }] = await Promise.all([
      startGitHubIssuesStandin(),
      vaultCore({ tracker: { retryBaseMs: 200, retryMaxMs: 2_000 } }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await cleanup?.();
    await gh?.close();
  });

  const tracked = async (ws: string, statusMap: Record<string, string> = {}) => {
    const issue = gh.file({ title: `Issue of ${ws}`, body: 'As filed.' });
    const t = await trackedTask(
      core,
      {
        kind: 'github',
        workspaceId: ws,
        name: ws,
        url: gh.url,
        apiKey: gh.token,
        project: gh.repo,
        issue,
        taskTitle: ws,
      },
      statusMap,
    );
    const client = await connectRun(t.run);
    clients.push(client);
    return { ...t, issue, client };
  };
  const comment = async (client: RunClient, body: string) =>
    okResult(await client.call('board.comment', { body })) as { id: string };
  const card = async (taskId: string) => {
    const t = (await asOperator(core, 'board.list', {})).tasks.find((x) => x.id === taskId);
    if (!t) throw new Error('no card');
    return t;
  };
  const ours = (issue: number) => gh.comments(issue).filter((c) => c.body.includes('[nexus:'));

  it('mirrors a board comment as an issue comment naming the agent, keeps its remote id, and the card says sent', async () => {
    const { taskId, issue, client } = await tracked('gh-mirror');
    expect((await card(taskId)).issue).toMatchObject({
      number: issue,
      ref: `#${issue}`,
      title: 'Issue of gh-mirror',
      url: `https://github.com/${gh.repo}/issues/${issue}`,
    });
    const c = await comment(client, 'Found it: the parser drops the last line.');
    await waitFor(() => ours(issue).length === 1, 'the issue comment', 10_000);
    const [got] = ours(issue);
    expect(got?.body).toMatch(/^Found it: the parser drops the last line\.\n\n— agent agent-gh-mirror, /);
    expect(got?.body).toMatch(/via Nexus \[nexus:[0-9a-f-]{36}\]$/);
    await waitFor(async () => (await card(taskId)).comments.find((x) => x.id === c.id)?.mirror === 'sent', 'sent');
    const row = coreDb(core).prepare('SELECT remote_id FROM tracker_outbox WHERE comment_id = ?').get(c.id) as {
      remote_id: string;
    };
    expect(row.remote_id).toBe(String(got?.id));
    // The stand-in answers only a Bearer token with the API version; the token is in no listing.
    expect(JSON.stringify(await asOperator(core, 'tracker.outbox', { taskId }))).not.toContain(gh.token);
  });

  it('closes the issue when the task is done (the status map says closed), with a note carrying the marker', async () => {
    const { taskId, issue } = await tracked('gh-status', { done: 'closed' });
    await asOperator(core, 'tasks.setStatus', { id: taskId, status: 'done' });
    await waitFor(() => ours(issue).length === 1, 'the status note', 10_000);
    expect(gh.issueState(issue)).toBe('closed');
    expect(ours(issue)[0]?.body).toMatch(/^Nexus: the task is now done\. \[nexus:/);
    expect(gh.requests.filter((r) => r === `PATCH /repos/${gh.repo}/issues/${issue}`)).toHaveLength(1);
  });

  it('sets the tracker and links a task over MCP, reading the issue; a pull request or a missing issue is refused', async () => {
    const now = new Date().toISOString();
    coreDb(core)
      .prepare(
        'INSERT INTO workspaces (id, name, repo_url, status, volume, created_at, updated_at) ' +
          "VALUES ('gh-mcp', 'gh-mcp', 'https://example.invalid/r.git', 'stopped', 'v-gh-mcp', ?, ?)",
      )
      .run(now, now);
    const secret = await asOperator(core, 'secrets.create', {
      name: 'github gh-mcp',
      kind: 'generic',
      host: new URL(gh.url).host,
      value: gh.token,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(core, { kind: 'operator' }).connect(serverSide);
    const mcp = new Client({ name: 'tracker-test', version: '1' });
    await mcp.connect(clientSide);
    try {
      const set = await mcp.callTool({
        name: 'set_workspace_tracker',
        arguments: {
          workspace: 'gh-mcp',
          tracker: { kind: 'github', url: gh.url, project: gh.repo, secretId: secret.id },
        },
      });
      expect(set.isError).toBeFalsy();
      expect(set.structuredContent).toMatchObject({ workspaceId: 'gh-mcp', tracker: { kind: 'github', pickup: null } });
      const issue = gh.file({ title: 'Crash on empty input', body: 'Steps: run it with no input.' });
      const pr = gh.file({ title: 'Fix the crash', pullRequest: true });
      const task = core.platform.createTask({ title: 'crash', project: 'gh-mcp' });
      const linked = await mcp.callTool({
        name: 'link_task_to_issue',
        arguments: { task_id: task.id, issue: `#${issue}` },
      });
      expect(linked.structuredContent).toEqual({
        taskId: task.id,
        workspaceId: 'gh-mcp',
        number: issue,
        ref: `#${issue}`,
        title: 'Crash on empty input',
        url: `https://github.com/${gh.repo}/issues/${issue}`,
      });
      for (const n of [pr, 9999]) {
        const r = await mcp.callTool({ name: 'link_task_to_issue', arguments: { task_id: task.id, issue: n } });
        expect(r.isError).toBe(true);
        expect(r._meta?.['nexus/error']).toMatchObject({ code: 'not_found' });
      }
      expect((await card(task.id)).issue?.number).toBe(issue);
      // create_session on the issue reads it first: a pull request is no issue to start from.
      const onPr = await mcp.callTool({ name: 'create_session', arguments: { workspace: 'gh-mcp', issue: pr } });
      expect(onPr._meta?.['nexus/error']).toMatchObject({ code: 'not_found' });
      const both = await mcp.callTool({
        name: 'create_session',
        arguments: { workspace: 'gh-mcp', issue, initial_message: 'something else' },
      });
      expect(both._meta?.['nexus/error']).toMatchObject({ code: 'bad_request' });
    } finally {
      await mcp.close();
    }
  });

  it('links a task an agent delegates or splits off to the issue it names; a missing issue refuses and stores nothing', async () => {
    const { client, taskId } = await tracked('gh-delegate');
    const other = gh.file({ title: 'Docs are wrong about plus signs' });
    const delegated = okResult(
      await client.call('task.delegate', { title: 'Fix the docs', roleHint: 'writer', issue: other }),
    ) as { id: string };
    const sub = okResult(await client.call('task.subtask', { title: 'Reproduce', issue: other })) as { id: string };
    for (const id of [delegated.id, sub.id]) expect((await card(id)).issue).toMatchObject({ number: other });
    const before = (await asOperator(core, 'board.list', {})).tasks.length;
    const missing = await client.call('task.delegate', { title: 'Nowhere', issue: 9999 });
    expect(missing).toMatchObject({ error: { code: 'not_found' } });
    expect((await asOperator(core, 'board.list', {})).tasks).toHaveLength(before);
    // The delegated task's comments go to its own issue, not the delegating task's.
    expect((await card(taskId)).issue?.number).not.toBe(other);
  });

  it('picks up open issues by label (and by assignee), oldest first, never a pull request', async () => {
    const picked = gh.file({ title: 'Pick me', labels: ['nexus', 'bug'] });
    gh.file({ title: 'A pull request with the label', labels: ['nexus'], pullRequest: true });
    gh.file({ title: 'No label' });
    const assigned = gh.file({ title: 'Assigned', labels: ['nexus'], assignee: 'octo-bot' });
    const tracker = new GitHubTracker(gh.url, gh.repo, gh.token);
    const byLabel = await tracker.pickable({ label: 'nexus', everySeconds: 60 });
    expect(byLabel.map((i) => i.number)).toEqual([picked, assigned]);
    expect(byLabel[0]).toEqual({
      number: picked,
      title: 'Pick me',
      body: '',
      url: `https://github.com/${gh.repo}/issues/${picked}`,
    });
    const both = await tracker.pickable({ label: 'nexus', assignee: 'octo-bot', everySeconds: 60 });
    expect(both.map((i) => i.number)).toEqual([assigned]);
    expect(gh.requests.at(-1)).toBe(
      `GET /repos/${gh.repo}/issues?state=open&sort=created&direction=asc&per_page=100&labels=nexus&assignee=octo-bot`,
    );
  });

  it('exactly once: 20 comments while 3 answers are lost and the API answers 503 for a while all arrive once, in order', async () => {
    const { taskId, issue, client } = await tracked('gh-once');
    // 120 comments by others before ours: a lost one is found on the second page of 100.
    for (let i = 0; i < 120; i++) gh.seedComment(issue, `an earlier comment ${i}`);
    gh.loseAnswerOf(3);
    const ids: string[] = [];
    for (let i = 1; i <= 10; i++) ids.push((await comment(client, `step ${i} of 20`)).id);
    await waitFor(() => ours(issue).length >= 4, 'the first comments, 3 answers lost', 20_000);
    gh.down = true;
    for (let i = 11; i <= 20; i++) ids.push((await comment(client, `step ${i} of 20`)).id);
    await waitFor(
      async () => (await card(taskId)).comments.some((c) => c.mirror === 'pending'),
      'pending while the API answers 503',
      10_000,
    );
    await new Promise((r) => setTimeout(r, 3_000));
    expect(
      (await asOperator(core, 'tracker.outbox', { taskId })).entries.some((e) => /503/.test(e.lastError ?? '')),
    ).toBe(true);
    gh.down = false;
    await waitFor(async () => (await card(taskId)).comments.every((c) => c.mirror === 'sent'), 'all sent', 30_000);
    await new Promise((r) => setTimeout(r, 1_000)); // nothing more comes
    const got = ours(issue);
    expect(got.map((c) => c.body.split('\n')[0])).toEqual(ids.map((_, i) => `step ${i + 1} of 20`));
    expect(new Set(got.map((c) => /\[nexus:([0-9a-f-]+)\]$/.exec(c.body)?.[1])).size).toBe(20);
    expect(
      gh.requests.filter((r) => r.endsWith(`/issues/${issue}/comments?per_page=100&page=2`)).length,
    ).toBeGreaterThanOrEqual(4); // each of the 3 lost, and the row the 503s held
  }, 90_000);
});
