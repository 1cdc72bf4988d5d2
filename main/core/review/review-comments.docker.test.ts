import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviewRig } from '../../../test/helpers/review-rig';
import { ReviewComments } from './review-comments';

// One session worktree in a worker container; the agent's turn is a shell edit and the `turnEnded` signal.
let rig: Awaited<ReturnType<typeof reviewRig>>;
let comments: ReviewComments;
let sessionId = '';
const wt = '/workspace/.nexus-worktrees/s';

beforeAll(async () => {
  rig = await reviewRig();
  await rig.sh(`cd /workspace; seq 1 10 > a.txt; git add -A; git commit -qm base`);
  sessionId = (await rig.addSession('s')).id;
  await rig.sh(`cd ${wt}; printf 'const a = 1;\\nconst b = 2;\\n' > new.ts; ln -s /etc/passwd leak`);
  comments = new ReviewComments(rig.deps, rig.db);
  comments.follow();
}, 180_000);
afterAll(async () => {
  await rig?.dispose();
});

describe('review comments on diff lines', () => {
  it('quotes the lines from the worktree, collects drafts, and sends them as one message', async () => {
    const one = await comments.add('review/s', { path: 'a.txt', startLine: 3, endLine: 4, body: 'Why these?' });
    expect(one).toMatchObject({ quote: '3\n4\n', status: 'draft', linesChanged: null });
    await comments.add(sessionId, { path: 'new.ts', startLine: 2, endLine: 2, body: 'Use let.' });
    const r = await comments.send(sessionId);
    expect(r).toMatchObject({ sent: 2, status: 'delivered' });
    expect(rig.messages).toHaveLength(1);
    expect(rig.messages[0]?.text).toContain('1. a.txt, lines 3-4:\n```\n3\n4\n```\nWhy these?');
    expect(rig.messages[0]?.text).toContain('2. new.ts, line 2:\n```\nconst b = 2;\n```\nUse let.');
    expect((await comments.list(sessionId)).comments.map((c) => c.status)).toEqual(['sent', 'sent']);
    await expect(comments.send(sessionId)).rejects.toMatchObject({ code: 'conflict' });
  });

  it("says after the agent's next turn whether each comment's lines changed", async () => {
    await rig.sh(`cd ${wt}; sed -i 's/^4$/four/' a.txt`);
    rig.signals.emit('turnEnded', { sessionId, workspaceId: rig.workspace.id });
    const until = Date.now() + 10_000;
    let now = (await comments.list(sessionId)).comments;
    while (now.some((c) => c.linesChanged === null) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 20));
      now = (await comments.list(sessionId)).comments;
    }
    expect(now.map((c) => [c.path, c.linesChanged])).toEqual([
      ['a.txt', true],
      ['new.ts', false],
    ]);
  });

  it('refuses lines outside the worktree or past the end, and keeps sent comments on their lines', async () => {
    for (const bad of [
      { path: 'leak', startLine: 1, endLine: 1 },
      { path: '../../../etc/passwd', startLine: 1, endLine: 1 },
      { path: 'a.txt', startLine: 9, endLine: 11 },
      { path: 'a.txt', startLine: 3, endLine: 2 },
    ])
      await expect(comments.add(sessionId, { ...bad, body: 'x' })).rejects.toMatchObject({ code: 'bad_request' });
    const sent = (await comments.list(sessionId)).comments[0];
    expect(() => comments.delete(sent?.id as string)).toThrow(/only drafts are deleted/);
    const draft = await comments.add(sessionId, { path: 'a.txt', startLine: 1, endLine: 1, body: 'x' });
    expect(comments.delete(draft.id)).toEqual({ deleted: true, id: draft.id });
    expect((await comments.list(sessionId)).comments).toHaveLength(2);
  });
});
