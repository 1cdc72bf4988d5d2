import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../shared/contract';
import { repoRoot } from '../../../test/helpers/core';
import { userTexts } from '../../../test/helpers/model-api';
import { startRealAgentFleet, type RealAgentFleet } from '../../../test/helpers/real-agent-fleet';
import { startRedmine, type RedmineServer } from '../../../test/helpers/redmine';
import { loadTools, offered } from '../../../test/helpers/tool-search';
import { waitFor } from '../../../test/helpers/wait';

/**
 * Issue #45's acceptance with the real pinned Claude Code CLI in a Docker workspace (the model a scripted stand-in)
 * and a real Redmine: a session started from an issue (over MCP, and with `nexus new --issue`) gets the issue's
 * text as its first turn byte for byte and the issue's number in its branch; the model's call of the board.comment
 * platform tool arrives on the issue as a journal note naming the session.
 */
const BOARD_COMMENT = 'mcp__nexus__board_comment';
const ws = 'tracked';

describe('sessions on Redmine issues with the real agent CLI (docker)', () => {
  let fleet: RealAgentFleet;
  let redmine: RedmineServer;

  beforeAll(async () => {
    [fleet, redmine] = await Promise.all([startRealAgentFleet(), startRedmine()]);
    await fleet.createWorkspace(ws);
    const secret = await fleet.call('secrets.create', {
      name: 'redmine',
      kind: 'generic',
      host: new URL(redmine.url).host,
      value: redmine.apiKey,
    });
    await fleet.call('tracker.set', {
      workspace: ws,
      tracker: {
        kind: 'redmine',
        url: redmine.url,
        project: redmine.project,
        secretId: secret.id,
        statusMap: {},
        pickup: null,
      },
    });
  }, 600_000);
  afterAll(async () => {
    await fleet?.dispose();
    await redmine?.dispose();
  }, 180_000);

  /** The first message as Redmine holds the issue: subject, a blank line, description. */
  const issueText = async (n: number): Promise<string> => {
    const r = await redmine.api<{ issue: { subject: string; description: string } }>('GET', `/issues/${n}.json`);
    return `${r.body.issue.subject}\n\n${r.body.issue.description}`;
  };
  const notes = async (n: number) => (await redmine.journals(n)).map((j) => j.notes).filter(Boolean);
  /** The branch checked out in the session's worktree, as git in the container says. */
  const branchesInContainer = async (): Promise<string[]> =>
    (await fleet.sh(ws, 'git -C /workspace worktree list --porcelain')).stdout
      .split('\n')
      .filter((l) => l.startsWith('branch '))
      .map((l) => l.slice('branch refs/heads/'.length));

  it("create_session on an issue (MCP): the issue's text is the first turn byte-exact, its number in the branch, and the model's board.comment lands on the issue", async () => {
    const n = await redmine.issue(
      'Login rejects “plus” addresses: a+b@example.com',
      'Steps:\n\t1. sign up with a+b@example.com\n\t2. see "invalid email" — $(whoami) `id` \\n ünïcødé\n\nExpected: accepted.',
    );
    const s = await fleet.tool<Session>('create_session', { workspace: ws, issue: `#${n}` });
    const comment = `Found it: the email regex has no + (issue ${n}).`;
    const load = loadTools([BOARD_COMMENT], (r) => offered(r, 'mcp__nexus__').includes(BOARD_COMMENT), [
      { toolUse: { name: BOARD_COMMENT, input: { body: comment } } },
      { text: 'Commented on the board.' },
    ]);
    fleet.respond(s.id, load.respond);
    expect(s.name).toBe(`issue-${n}-login-rejects-plus-addresses-a-b-example-com`);
    expect(s.branch).toBe(`nexus/${s.name}`);

    const first = await fleet.firstTurn(s.id);
    expect(userTexts(first.body.messages ?? [])[0]).toBe(await issueText(n));
    expect(await branchesInContainer()).toContain(s.branch);
    const card = (await fleet.call('board.list', {})).tasks.find((t) => t.id === s.taskId);
    expect(card?.issue).toMatchObject({ number: n, ref: `#${n}` });

    // The model loads the platform tool and calls it; the comment is mirrored through the outbox.
    await waitFor(async () => (await notes(n)).some((x) => x.startsWith(comment)), 'the comment on the issue', 120_000);
    const got = await notes(n);
    expect(got[0]).toMatch(
      new RegExp(
        `^Nexus started session ${s.name} in workspace ${ws} on this issue \\(branch ${s.branch}\\)\\. \\[nexus:`,
      ),
    );
    expect(got.find((x) => x.startsWith(comment))).toMatch(
      new RegExp(`\\n\\n— (agent [^,]+, )?session ${s.name} in workspace ${ws}, via Nexus \\[nexus:[0-9a-f-]{36}\\]$`),
    );
    await waitFor(
      async () =>
        (await fleet.call('board.list', {})).tasks
          .find((t) => t.id === s.taskId)
          ?.comments.some((c) => c.body === comment && c.mirror === 'sent'),
      'sent on the card',
      10_000,
    );
  }, 240_000);

  it('nexus new --issue: the same first turn byte for byte, the key in the branch, the task linked', async () => {
    const n = await redmine.issue('Crash on empty config', 'Run `app --config ""`.\nIt panics:\n  index out of range');
    const cli = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          'main/cli.ts',
          'new',
          ws,
          'triage',
          '--issue',
          String(n),
          '--json',
          '--data-dir',
          fleet.dataDir,
        ],
        { cwd: repoRoot },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    });
    expect(cli).toMatchObject({ code: 0, stderr: '' });
    const s = JSON.parse(cli.stdout) as Session;
    // A given name without the key gets it in front.
    expect(s.branch).toBe(`nexus/issue-${n}-triage`);
    expect(userTexts((await fleet.firstTurn(s.id)).body.messages ?? [])[0]).toBe(await issueText(n));
    expect(await branchesInContainer()).toContain(s.branch);
    const card = (await fleet.call('board.list', {})).tasks.find((t) => t.id === s.taskId);
    expect(card?.issue).toMatchObject({ number: n, title: 'Crash on empty config' });
    await waitFor(async () => (await notes(n)).length === 1, 'the started note', 20_000);
  }, 240_000);
});
