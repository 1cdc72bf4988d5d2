import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '..';
import { vaultCore } from '../../../test/helpers/core';
import { okResult } from '../../../test/helpers/platform-fixture';
import { startRedmine, type RedmineServer } from '../../../test/helpers/redmine';
import { connectRun, type RunClient } from '../../../test/helpers/run-client';
import { asOperator, trackedTask } from '../../../test/helpers/tracker-fixture';
import { waitFor } from '../../../test/helpers/wait';

/** How long Redmine is down in the outage case: the issue's acceptance, as written. */
const OUTAGE_MS = 60_000;

describe('the board mirrored on a real Redmine (Debian package, SQLite)', () => {
  let redmine: RedmineServer;
  let core: Core;
  let cleanup: () => Promise<void>;
  const clients: RunClient[] = [];

  beforeAll(async () => {
    [redmine, { core, cleanup }] = await Promise.all([
      startRedmine(),
      // Retries from 200 ms doubling to 5 s (default 1 s to 30 s): the same backoff, sooner after the outage.
      vaultCore({ tracker: { retryBaseMs: 200, retryMaxMs: 5_000 } }),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await cleanup?.();
    await redmine?.dispose();
  });

  const tracked = async (ws: string, statusMap: Record<string, string> = {}) => {
    const issue = await redmine.issue(`Issue of ${ws}`, 'As filed.');
    const t = await trackedTask(
      core,
      {
        workspaceId: ws,
        name: ws,
        url: redmine.url,
        apiKey: redmine.apiKey,
        project: redmine.project,
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
    const { tasks } = await asOperator(core, 'board.list', {});
    const t = tasks.find((x) => x.id === taskId);
    if (!t) throw new Error('no card');
    return t;
  };
  const notes = async (issue: number) => (await redmine.journals(issue)).map((j) => j.notes).filter(Boolean);

  it('mirrors a board comment as a journal note that names the agent, and the card says it was sent', async () => {
    const { taskId, issue, client } = await tracked('mirror-ws');
    expect((await card(taskId)).issue).toMatchObject({ number: issue, ref: `#${issue}`, title: 'Issue of mirror-ws' });
    const c = await comment(client, 'Found the cause: the regex rejects plus signs.');
    await waitFor(async () => (await notes(issue)).length === 1, 'the journal', 20_000);
    const [note] = await notes(issue);
    expect(note).toMatch(/^Found the cause: the regex rejects plus signs\.\n\n— agent agent-mirror-ws, /);
    expect(note).toMatch(/via Nexus \[nexus:[0-9a-f-]{36}\]$/);
    await waitFor(
      async () => (await card(taskId)).comments.find((x) => x.id === c.id)?.mirror === 'sent',
      'sent on the card',
      5_000,
    );
  });

  it("mirrors the task's status where a mapping is set, as Redmine's status with a note", async () => {
    const { taskId, issue } = await tracked('status-ws', { done: '3' });
    await asOperator(core, 'tasks.setStatus', { id: taskId, status: 'done' });
    // No mapping for cancelled: nothing goes.
    await waitFor(async () => (await redmine.journals(issue)).length === 1, 'the status journal', 20_000);
    const [j] = await redmine.journals(issue);
    expect(j?.details).toContainEqual(expect.objectContaining({ name: 'status_id', old_value: '1', new_value: '3' }));
    expect(j?.notes).toMatch(/^Nexus: the task is now done\. \[nexus:/);
  });

  it('shows a refused comment as failed on the card and keeps it', async () => {
    const { taskId, issue, client } = await tracked('refused-ws');
    // A later issue keeps the deleted one's id from being reused (SQLite's rowid is max + 1).
    await redmine.issue('A later issue');
    expect((await redmine.api('DELETE', `/issues/${issue}.json`)).status).toBe(204);
    const c = await comment(client, 'Nobody will read this.');
    await waitFor(
      async () => (await card(taskId)).comments.find((x) => x.id === c.id)?.mirror === 'failed',
      'failed on the card',
      10_000,
    );
    await new Promise((r) => setTimeout(r, 2_000));
    const [entry, ...more] = (await asOperator(core, 'tracker.outbox', { taskId })).entries;
    expect(more).toEqual([]);
    expect(entry).toMatchObject({ state: 'failed', kind: 'comment', sentAt: null });
    expect(entry?.lastError).toMatch(/answered 404/);
  });

  it(
    'Redmine stopped for 60 s during 20 comments: all 20 arrive once after it is back, in order',
    async () => {
      const { taskId, issue, client } = await tracked('outage-ws');
      await redmine.stop();
      const stoppedAt = Date.now();
      const ids: string[] = [];
      for (let i = 1; i <= 20; i++) {
        ids.push((await comment(client, `progress ${i} of 20`)).id);
        await new Promise((r) => setTimeout(r, (OUTAGE_MS - 10_000) / 20));
      }
      // Stored and waiting, shown as pending (the tracker is unreachable, it did not refuse).
      const waiting = (await card(taskId)).comments.filter((c) => ids.includes(c.id));
      expect(waiting.map((c) => c.mirror)).toEqual(ids.map(() => 'pending'));
      const entries = (await asOperator(core, 'tracker.outbox', { taskId })).entries;
      expect(entries[0]?.lastError).toMatch(/could not be reached/);
      await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - stoppedAt))));
      await redmine.start();
      await waitFor(async () => (await notes(issue)).length >= 20, 'all 20 journals', 30_000);
      await new Promise((r) => setTimeout(r, 2_000)); // nothing more comes
      const got = await notes(issue);
      expect(got.map((n) => n.split('\n')[0])).toEqual(ids.map((_, i) => `progress ${i + 1} of 20`));
      const markers = got.map((n) => /\[nexus:([0-9a-f-]+)\]$/.exec(n)?.[1]);
      expect(new Set(markers).size).toBe(20);
      const after = (await card(taskId)).comments.filter((c) => ids.includes(c.id));
      expect(after.map((c) => c.mirror)).toEqual(ids.map(() => 'sent'));
    },
    OUTAGE_MS + 90_000,
  );
});
