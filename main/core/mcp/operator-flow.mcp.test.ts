import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FIXTURE_PATH,
  callPlatformTool,
  fireHook,
  fixtureRecords,
  installAgentFixture,
} from '../../../e2e/fixtures/agent';
import { ensureTestWorkerImage, testBaseImage } from '../../../test/helpers/docker';
import { serveGitRepo } from '../../../test/helpers/git-http-server';
import { connectClient, mintToken, startNexus } from '../../../test/helpers/mcp';
import { tempDir } from '../../../test/helpers/temp-dir';
import { bundleWorkerScripts } from '../../../test/helpers/worker-scripts';
import { operatorContext } from '../handlers';
import { readUntil } from '../../../test/helpers/wait';

type Nexus = Awaited<ReturnType<typeof startNexus>>;

// The operator flow again, driven by an MCP client (the SDK over Streamable HTTP with a vault-class
// token) instead of the UI: real Docker, NATS, keychain and git; the agent is the fixture.
describe('the operator flow through the MCP server', () => {
  let nexus: Nexus;
  let client: Client;
  let repo: Awaited<ReturnType<typeof serveGitRepo>>;
  const dir = tempDir('nexus-mcp-flow-');
  const token = `ghp_${randomBytes(20).toString('hex')}`;
  const name = `mcpflow-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    await ensureTestWorkerImage();
    repo = await serveGitRepo(token);
    nexus = await startNexus({
      docker: { baseImage: testBaseImage() },
      sessions: { agentCommand: ['node', FIXTURE_PATH] },
    });
    client = await connectClient(nexus.mcpUrl, (await mintToken(nexus.running, 'vault')).secret);
  }, 600_000);
  afterAll(async () => {
    await client?.close();
    await nexus?.stop();
    await repo?.close();
    dir.remove();
  });

  const call = async <T = Record<string, unknown>>(tool: string, args: Record<string, unknown>): Promise<T> => {
    const r = await client.callTool({ name: tool, arguments: args });
    expect(r.isError, `${tool}: ${JSON.stringify(r.content)}`).toBeFalsy();
    return r.structuredContent as T;
  };
  const until = <T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 180_000): Promise<T> => readUntil(read, ok, ms);

  it('creates a workspace and three sessions, sees a permission prompt in get_nexus_info, a message that approves nothing, the answer in the terminal, and tears everything down', async () => {
    // The provider token goes into the vault by the operator; MCP clients can never read or add secrets.
    const secret = await nexus.running.core.dispatcher.call(
      'secrets.create',
      { name: 'git', kind: 'github', host: repo.host, value: token },
      operatorContext('http'),
    );
    await call('create_workspace', { name, repo_url: repo.url, secret_id: secret.id });
    const ws = await until(
      () => call<{ status: string; containerId: string | null }>('get_workspace', { workspace: name }),
      (w) => w.status === 'running',
    );
    installAgentFixture(ws.containerId!, (await bundleWorkerScripts(dir.path)).agentFixture);

    const ids: Record<string, string> = {};
    for (const s of ['one', 'two', 'three'])
      ids[s] = (
        await call<{ id: string }>('create_session', { workspace: name, name: s, initial_message: `work on ${s}` })
      ).id;
    await until(
      () => call<{ sessions: { agentState: string }[] }>('list_sessions', { workspace: name }),
      (l) => l.sessions.length === 3 && l.sessions.every((s) => s.agentState === 'working'),
      60_000,
    );

    fireHook(ws.containerId!, ids.two!, 'Notification', {
      notification_type: 'permission_prompt',
      message: 'Claude needs your permission to use Bash',
    });
    const waiting = await until(
      () =>
        call<{ attention: { counts: { needs_you: number }; needsYou: { sessionName: string; reason: string }[] } }>(
          'get_nexus_info',
          {},
        ),
      (i) => i.attention.counts.needs_you === 1,
      15_000,
    );
    expect(waiting.attention.needsYou[0]).toMatchObject({ sessionName: 'two', reason: 'Permission needed: Bash' });

    // A message is no consent: the agent queues it behind the open dialog, which stays, and so does needs_you.
    const sent = await call<{ status: string }>('send_message', { session: ids.two, text: 'approved, go on' });
    expect(sent.status).toBe('sent_unconfirmed');
    expect(
      fixtureRecords(ws.containerId!, ids.two!)
        .filter((r) => r.kind === 'message')
        .map((r) => [r.content, r.queuedBehindDialog]),
    ).toEqual([['approved, go on', true]]);
    expect((await call<{ agentState: string }>('get_session', { session: ids.two })).agentState).toBe(
      'waiting_permission',
    );
    expect(
      (await call<{ attention: { counts: { needs_you: number } } }>('get_nexus_info', {})).attention.counts.needs_you,
    ).toBe(1);

    // The human answers in the terminal (the tool runs: PostToolUse); then the queued message goes on.
    fireHook(ws.containerId!, ids.two!, 'PostToolUse', { tool_name: 'Bash' });
    await until(
      () => call<{ agentState: string }>('get_session', { session: ids.two }),
      (s) => s.agentState === 'working',
      15_000,
    );
    await until(
      async () => fixtureRecords(ws.containerId!, ids.two!),
      (recs) =>
        recs.some(
          (r) => r.kind === 'hook' && r.event === 'UserPromptSubmit' && JSON.stringify(r).includes('approved, go on'),
        ),
      15_000,
    );
    expect(
      (await call<{ attention: { counts: { needs_you: number } } }>('get_nexus_info', {})).attention.counts.needs_you,
    ).toBe(0);

    // A memory proposed from inside the worker waits for review; once approved, the worker finds it.
    const lesson = `${name} deploys need the staging flag`;
    await callPlatformTool(ws.containerId!, ids.three!, 'memory_propose', { content: lesson, scope: 'project' });
    const pending = await until(
      () => call<{ attention: { review: { memories: number } } }>('get_nexus_info', {}),
      (i) => i.attention.review.memories === 1,
      15_000,
    );
    expect(pending.attention.review.memories).toBe(1);
    const queue = await nexus.running.core.dispatcher.call('review.list', {}, operatorContext('http'));
    const memory = queue.memories.find((m) => m.content === lesson);
    expect(memory).toBeDefined();
    await nexus.running.core.dispatcher.call('review.approveMemory', { id: memory!.id }, operatorContext('http'));
    expect(
      JSON.stringify(
        await callPlatformTool(ws.containerId!, ids.one!, 'memory_search', { query: 'deploys staging flag' }),
      ),
    ).toContain(lesson);

    for (const id of Object.values(ids)) await call('delete_session', { session: id });
    expect((await call<{ sessions: unknown[] }>('list_sessions', { workspace: name })).sessions).toEqual([]);
    await call('delete_workspace', { workspace: name });
    expect(
      (await call<{ workspaces: { name: string }[] }>('list_workspaces', {})).workspaces.map((w) => w.name),
    ).not.toContain(name);
  }, 600_000);
});
