import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isToolResult } from '../../../test/helpers/model-api';
import { startRealAgentFleet, type RealAgentFleet } from '../../../test/helpers/real-agent-fleet';
import { readUntil, waitFor } from '../../../test/helpers/wait';

interface Info {
  attention: {
    counts: { needs_you: number };
    needsYou: { sessionName: string; reason: string }[];
    review: { memories: number };
  };
}

// The operator flow driven by an MCP client (the SDK over Streamable HTTP with a vault-class token)
// instead of the UI: real Docker, NATS, keychain and git, and the real pinned agent CLI against the
// scripted model stand-in (test/helpers/real-agent-fleet.ts), on the default `nexus` bridge.
describe('the operator flow through the MCP server, with the real agent', () => {
  let fleet: RealAgentFleet;
  const token = `ghp_${randomBytes(20).toString('hex')}`;
  const name = `mcpflow-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    fleet = await startRealAgentFleet({}, { repoToken: token });
  }, 600_000);
  afterAll(async () => fleet?.dispose(), 180_000);

  const call = <T = Record<string, unknown>>(tool: string, args: Record<string, unknown>): Promise<T> =>
    fleet.tool<T>(tool, args);
  const info = () => call<Info>('get_nexus_info', {});

  it('creates a workspace and three sessions, sees a permission dialog in get_nexus_info, a message that approves nothing, the operator allowing it, a memory through review, and tears everything down', async () => {
    // The provider token goes into the vault by the operator; MCP clients can never read or add secrets.
    const secret = await fleet.call('secrets.create', {
      name: 'git',
      kind: 'github',
      host: fleet.env.repo.host,
      value: token,
    });
    await call('create_workspace', { name, repo_url: fleet.env.repo.url, secret_id: secret.id });
    await readUntil(
      () => call<{ status: string }>('get_workspace', { workspace: name }),
      (w) => w.status === 'running',
      300_000,
    );

    const ids: Record<string, string> = {};
    for (const s of ['one', 'two', 'three'])
      ids[s] = (
        await call<{ id: string }>('create_session', { workspace: name, name: s, initial_message: `work on ${s}` })
      ).id;
    const marker = `/tmp/nexus-flow-${randomBytes(4).toString('hex')}`;
    fleet.script(
      ids.two!,
      { toolUse: { name: 'Bash', input: { command: `touch ${marker}`, description: 'Create the marker file' } } },
      { text: 'Marker created.' },
    );
    await fleet.waitForSession(ids.two!, 'waiting_permission');
    for (const s of ['one', 'three'])
      await fleet.waitForSession(ids[s]!, (x) => x.agentState === 'idle' && fleet.turnsOf(ids[s]!).length > 0);

    const waiting = await readUntil(info, (i) => i.attention.counts.needs_you === 1, 30_000);
    expect(waiting.attention.needsYou[0]).toMatchObject({ sessionName: 'two' });
    expect(waiting.attention.needsYou[0]?.reason).toMatch(/Bash/);

    // A message is no consent: the agent queues it behind the open dialog, which stays, and so does needs_you.
    const sent = await call<{ status: string }>('send_message', { session: ids.two, text: 'approved, go on' });
    expect(sent.status).toBe('sent_unconfirmed');
    await waitFor(async () => /Do you want to proceed\?/.test(await fleet.pane(ids.two!)), 'the dialog', 60_000);
    expect((await fleet.sh(name, `test -e ${marker}`)).exitCode).not.toBe(0);
    expect((await call<{ agentState: string }>('get_session', { session: ids.two })).agentState).toBe(
      'waiting_permission',
    );
    expect((await info()).attention.counts.needs_you).toBe(1);

    // The operator allows it from Nexus: the command runs, then the queued message reaches the model.
    const { requests } = await fleet.call('permissions.list', { sessionId: ids.two! });
    await fleet.call('permissions.decide', { id: requests[0]!.id, behavior: 'allow' });
    await waitFor(async () => (await fleet.sh(name, `test -e ${marker}`)).exitCode === 0, 'the command', 60_000);
    await waitFor(
      () => fleet.turnsOf(ids.two!).some((t) => JSON.stringify(t.body.messages).includes('approved, go on')),
      'the queued message at the model',
      120_000,
    );
    await readUntil(info, (i) => i.attention.counts.needs_you === 0, 60_000);

    // three's agent proposes a memory through nexus-mcp; the operator approves it; one's agent finds it.
    const lesson = `${name} deploys need the staging flag`;
    fleet.script(
      ids.three!,
      { toolUse: { name: 'ToolSearch', input: { query: 'select:mcp__nexus__memory_propose', max_results: 5 } } },
      { toolUse: { name: 'mcp__nexus__memory_propose', input: { content: lesson, scope: 'project' } } },
      { text: 'Proposed.' },
    );
    await call('send_message', { session: ids.three, text: 'remember the deploy lesson' });
    const pending = await readUntil(info, (i) => i.attention.review.memories === 1, 240_000);
    expect(pending.attention.review.memories).toBe(1);
    const queue = await fleet.call('review.list', {});
    const memory = queue.memories.find((m) => m.content === lesson);
    expect(memory).toBeDefined();
    await fleet.call('review.approveMemory', { id: memory!.id });
    fleet.script(
      ids.one!,
      { toolUse: { name: 'ToolSearch', input: { query: 'select:mcp__nexus__memory_search', max_results: 5 } } },
      { toolUse: { name: 'mcp__nexus__memory_search', input: { query: 'deploys staging flag' } } },
      { text: 'Found it.' },
    );
    await call('send_message', { session: ids.one, text: 'what do we know about deploys?' });
    const found = await waitFor(
      () => fleet.turnsOf(ids.one!).find((t) => isToolResult(t) && JSON.stringify(t.body.messages).includes('staging')),
      'the memory_search result at the model',
      240_000,
    );
    expect(JSON.stringify(found.body.messages)).toContain(lesson);

    for (const id of Object.values(ids)) await call('delete_session', { session: id });
    expect((await call<{ sessions: unknown[] }>('list_sessions', { workspace: name })).sessions).toEqual([]);
    await call('delete_workspace', { workspace: name });
    expect(
      (await call<{ workspaces: { name: string }[] }>('list_workspaces', {})).workspaces.map((w) => w.name),
    ).not.toContain(name);
  }, 900_000);
});
