import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventMessage } from '../../../shared/contract';
import { FIXTURE_PATH, fireHook, installAgentFixture } from '../../../test/helpers/agent-fixture';
import { ensureTestWorkerImage, testBaseImage } from '../../../test/helpers/docker';
import { serveGitRepo } from '../../../test/helpers/git-http-server';
import { connectClient, mintToken, startNexus } from '../../../test/helpers/mcp';
import { tempDir } from '../../../test/helpers/temp-dir';
import { bundleWorkerScripts } from '../../../test/helpers/worker-scripts';
import { operatorContext } from '../handlers';
import { readUntil } from '../../../test/helpers/wait';

type Nexus = Awaited<ReturnType<typeof startNexus>>;
const run = promisify(execFile);

// Ship through the MCP server: a session's changes, its push to the authenticated git
// server with the workspace's vault secret, the refusals, and delete keeping the branch. Real
// Docker, NATS, keychain and git; the agent is the fixture, the "agent's edits" a docker exec.
describe('ship a session', () => {
  let nexus: Nexus;
  let vault: Client;
  let reader: Client;
  let repo: Awaited<ReturnType<typeof serveGitRepo>>;
  const dir = tempDir('nexus-ship-');
  const token = `ghp_${randomBytes(20).toString('hex')}`;
  const name = `ship-${randomBytes(3).toString('hex')}`;
  const events: EventMessage[] = [];
  let containerId = '';
  let sessionId = '';
  let secretId = '';

  const call = async <T = Record<string, unknown>>(
    tool: string,
    args: Record<string, unknown>,
    client = vault,
  ): Promise<T> => {
    const r = await client.callTool({ name: tool, arguments: args });
    expect(r.isError, `${tool}: ${JSON.stringify(r.content)}`).toBeFalsy();
    return r.structuredContent as T;
  };
  const refusal = async (tool: string, args: Record<string, unknown>, client = vault): Promise<string> => {
    const r = await client.callTool({ name: tool, arguments: args });
    expect(r.isError, `${tool} should be refused`).toBe(true);
    return (r.content as { text: string }[])[0]?.text ?? '';
  };
  const until = <T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 120_000): Promise<T> => readUntil(read, ok, ms);
  /** What the agent would do in its worktree, as the worker user. */
  const inWorktree = (script: string) =>
    run('docker', ['exec', '-w', `/workspace/.nexus-worktrees/work`, containerId, 'sh', '-c', script]);

  beforeAll(async () => {
    await ensureTestWorkerImage();
    repo = await serveGitRepo(token);
    nexus = await startNexus({
      docker: { baseImage: testBaseImage() },
      sessions: { agentCommand: ['node', FIXTURE_PATH] },
    });
    nexus.running.core.events.subscribe((e) => events.push(e));
    vault = await connectClient(nexus.mcpUrl, (await mintToken(nexus.running, 'vault')).secret);
    reader = await connectClient(nexus.mcpUrl, (await mintToken(nexus.running, 'read')).secret);
    secretId = (
      await nexus.running.core.dispatcher.call(
        'secrets.create',
        { name: 'git', kind: 'github', host: repo.host, value: token },
        operatorContext('http'),
      )
    ).id;
    await call('create_workspace', { name, repo_url: repo.url, secret_id: secretId });
    const ws = await until(
      () => call<{ status: string; containerId: string | null }>('get_workspace', { workspace: name }),
      (w) => w.status === 'running',
    );
    containerId = ws.containerId!;
    installAgentFixture(containerId, (await bundleWorkerScripts(dir.path)).agentFixture);
    sessionId = (await call<{ id: string }>('create_session', { workspace: name, name: 'work' })).id;
    await until(
      () => call<{ status: string }>('get_session', { session: sessionId }),
      (s) => s.status === 'running',
    );
  }, 600_000);
  afterAll(async () => {
    await vault?.close();
    await reader?.close();
    await nexus?.stop();
    await repo?.close();
    dir.remove();
  });

  it("shows the session's commits and changes, committed and not, and refreshes on its Stop hook", async () => {
    await inWorktree(
      'git config user.email a@x && git config user.name Agent && ' +
        "printf 'fixed\\n' > fix.txt && git add fix.txt && git commit -qm 'Fix the thing' && echo draft > notes.md",
    );
    const s = await call<{ changes: { ahead: number; behind: number; changedFiles: number; uncommitted: boolean } }>(
      'get_session',
      { session: sessionId },
      reader,
    );
    expect(s.changes).toMatchObject({ ahead: 1, behind: 0, changedFiles: 2, uncommitted: true });
    const d = await call<{ commits: { subject: string }[]; files: { path: string }[]; patches: { diff: string }[] }>(
      'get_session_diff',
      { session: sessionId },
      reader,
    );
    expect(d.commits.map((c) => c.subject)).toEqual(['Fix the thing']);
    expect(d.files.map((f) => f.path).sort()).toEqual(['fix.txt', 'notes.md']);
    expect(d.patches.map((p) => p.diff).join('')).toContain('+draft');

    await inWorktree('echo more > more.txt');
    const before = events.length;
    fireHook(containerId, sessionId, 'Stop', {});
    const changed = await until(
      async () => events.slice(before).find((e) => e.name === 'sessions.diffChanged'),
      (e) => e !== undefined,
      30_000,
    );
    expect(changed?.payload).toMatchObject({ sessionId, summary: { changedFiles: 3 } });
  });

  it('pushes the branch to the authenticated server with the vault secret; a read token cannot', async () => {
    const listed = (await reader.listTools()).tools.map((t) => t.name);
    expect(listed).toContain('get_session_diff');
    expect(listed).not.toContain('push_session');
    // The gate re-checks a tools/call it did not list: refused before any tool code runs.
    await expect(reader.callTool({ name: 'push_session', arguments: { session: sessionId } })).rejects.toThrow(
      /push_session needs a vault token/,
    );
    expect(repo.branchHead('nexus/work')).toBeNull();

    const pushed = await call<{ head: string; created: boolean; link: unknown }>('push_session', {
      session: sessionId,
    });
    expect(pushed.created).toBe(true);
    expect(repo.branchHead('nexus/work')).toBe(pushed.head);
    // The test server is no GitHub or GitLab: no link is guessed.
    expect(pushed.link).toBeNull();
    expect(events.some((e) => e.name === 'sessions.pushProgress')).toBe(true);
    expect(JSON.stringify(events)).not.toContain(token);
    const after = await call<{ changes: { unpushed: number } }>('get_session', { session: sessionId }, reader);
    expect(after.changes.unpushed).toBe(0);
  });

  it('refuses a non-fast-forward push and a wrong token, each with its reason', async () => {
    repo.commitOn('nexus/work', 'theirs.txt', 'someone else');
    await inWorktree("git commit -qam 'second' --allow-empty");
    expect(await refusal('push_session', { session: sessionId })).toMatch(/^\[conflict\].*non-fast-forward/);

    const rejectedBefore = repo.rejectedRequests();
    await nexus.running.core.dispatcher.call(
      'secrets.update',
      { id: secretId, value: `ghp_${'0'.repeat(40)}` },
      operatorContext('http'),
    );
    expect(await refusal('push_session', { session: sessionId })).toMatch(
      /^\[forbidden\].*refused the workspace's credential/,
    );
    expect(repo.rejectedRequests()).toBeGreaterThan(rejectedBefore);
  });

  it('keeps the branch on delete unless asked, and asks before losing unpushed commits', async () => {
    expect(await refusal('delete_session', { session: sessionId, delete_branch: true })).toMatch(
      /^\[conflict\].*not pushed anywhere/,
    );
    await call('delete_session', { session: sessionId });
    const { stdout } = await run('docker', [
      'exec',
      containerId,
      'git',
      '-C',
      '/workspace',
      'branch',
      '--list',
      'nexus/work',
    ]);
    expect(stdout.trim()).toBe('nexus/work');
    const { stdout: worktrees } = await run('docker', [
      'exec',
      containerId,
      'git',
      '-C',
      '/workspace',
      'worktree',
      'list',
    ]);
    expect(worktrees).not.toContain('.nexus-worktrees/work');
    const disk = await nexus.running.core.dispatcher.call(
      'workspaces.disk',
      { workspace: name },
      operatorContext('http'),
    );
    expect(disk.bytes).toBeGreaterThan(0);
  });
});
