import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { operatorContext } from '../../../main/core/handlers';
import { nexusMcpEnv } from '../../../main/core/platform/nexus-mcp-env';
import { platformFixture } from '../../../test/helpers/platform-fixture';
import type { RunCredentials } from '../../../main/core/platform/platform-service';
import { repoRoot } from '../../../test/helpers/core';
import { tempDir } from '../../../test/helpers/temp-dir';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

type Fixture = Awaited<ReturnType<typeof platformFixture>>;
const op = operatorContext('internal');

const MAIN = ['--import', 'tsx', 'resources/worker/nexus-mcp/main.ts'];

/** Starts nexus-mcp the way the agent CLI does: a stdio child with the run's credentials in its env. */
async function startBridge(
  creds: RunCredentials,
  env: Record<string, string> = nexusMcpEnv(creds),
  args: string[] = MAIN,
): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    cwd: repoRoot,
    stderr: 'pipe',
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  const client = new Client({ name: 'agent-cli-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const json = (r: unknown): Record<string, unknown> => {
  const res = r as CallToolResult;
  const first = res.content[0];
  if (res.isError || first?.type !== 'text') throw new Error(`tool error: ${JSON.stringify(res.content)}`);
  return JSON.parse(first.text) as Record<string, unknown>;
};

describe('nexus-mcp (worker-side stdio bridge)', () => {
  let f: Fixture;
  const clients: Client[] = [];
  beforeEach(async () => {
    f = await platformFixture();
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    await f.cleanup();
  });

  it('lists exactly the tools Core offers the run, with API-safe names', async () => {
    const all = [
      'board_comment',
      'memory_propose',
      'memory_search',
      'run_search',
      'skill_list',
      'skill_propose',
      'skill_view',
      'task_delegate',
      'task_subtask',
    ];
    const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();
    const agent = f.agent('cli');
    const withTask = await startBridge(
      await f.core.platform.createRun(agent.id, f.core.platform.createTask({ title: 'goal' }).id),
    );
    clients.push(withTask);
    expect(await names(withTask)).toEqual(all);
    const { tools } = await withTask.listTools();
    for (const t of tools) expect(t.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(tools.find((t) => t.name === 'memory_search')?.inputSchema.properties).toHaveProperty('query');

    // No task: the tools that act on the current task fail their check and are not offered.
    const noTask = await startBridge(await f.core.platform.createRun(agent.id));
    clients.push(noTask);
    expect(await names(noTask)).toEqual(all.filter((n) => n !== 'board_comment' && n !== 'task_subtask'));

    // The allow-list and the permissions: only skill.list is both allowed and permitted.
    const narrow = f.agent('narrow', { tools: ['skill.list', 'board.comment'] });
    f.core.platform.agents.update(narrow.id, { permissions: ['memory.write'] });
    const gated = await startBridge(
      await f.core.platform.createRun(narrow.id, f.core.platform.createTask({ title: 'goal' }).id),
    );
    clients.push(gated);
    expect(await names(gated)).toEqual(['skill_list']);
  }, 60_000);

  it('follows an edit of the agent record while it runs (tools/list changes, no restart)', async () => {
    const agent = f.agent('live');
    const client = await startBridge(await f.core.platform.createRun(agent.id));
    clients.push(client);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('memory_search');
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    await f.core.dispatcher.call('agents.update', { id: agent.id, tools: ['skill.list', 'skill.view'] }, op);
    await changed;
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['skill_list', 'skill_view']);
  }, 60_000);

  it('forwards every tool to Core over NATS as the run, end to end', async () => {
    const agent = f.agent('cli', { project: 'nexus' });
    const goal = f.core.platform.createTask({ title: 'goal' });
    const task = f.core.platform.createTask({ title: 'step', parentId: goal.id });
    const past = await f.core.platform.createRun(agent.id);
    await f.core.platform.endRun(past.runId, 'finished', 'Migrated the quasar config');
    const creds = await f.core.platform.createRun(agent.id, task.id);
    const client = await startBridge(creds);
    clients.push(client);
    const call = async (name: string, args: Record<string, unknown> = {}) =>
      json(await client.callTool({ name, arguments: args }));

    const memory = await call('memory_propose', { content: 'quasar builds need NODE_OPTIONS', scope: 'project' });
    expect(memory.status).toBe('pending');
    expect(f.core.review.memories.get(String(memory.id))).toMatchObject({
      agentId: agent.id,
      runId: creds.runId,
      project: 'nexus',
    });
    await f.core.dispatcher.call('review.approveMemory', { id: String(memory.id) }, op);
    expect(((await call('memory_search', { query: 'quasar' })).memories as { id: string }[]).map((m) => m.id)).toEqual([
      memory.id,
    ]);

    expect(await call('task_subtask', { title: 'split' })).toMatchObject({
      status: 'planned',
      dependsOn: [task.id],
      parentId: goal.id,
    });
    expect(await call('task_delegate', { title: 'review', roleHint: 'reviewer' })).toMatchObject({
      status: 'ready_for_agent',
      roleHint: 'reviewer',
    });
    expect(await call('board_comment', { body: 'halfway' })).toMatchObject({ taskId: task.id, body: 'halfway' });

    const skill = await call('skill_propose', {
      slug: 'quasar',
      name: 'Quasar',
      description: 'Build quasar',
      markdown: '# Quasar\nnpm run build',
    });
    expect(skill).toMatchObject({ version: 1, status: 'draft' });
    await f.core.dispatcher.call('review.approveSkill', { id: String(skill.id) }, op);
    expect((await call('skill_list')).skills).toEqual([
      { slug: 'quasar', name: 'Quasar', description: 'Build quasar', version: 1 },
    ]);
    expect((await call('skill_view', { slug: 'quasar' })).markdown).toBe('# Quasar\nnpm run build');
    expect(((await call('run_search', { query: 'quasar' })).runs as { id: string }[]).map((r) => r.id)).toEqual([
      past.runId,
    ]);
  }, 60_000);

  it('reads the run password from a file, so it need not sit in any environment', async () => {
    const creds = await f.core.platform.createRun(f.agent('filed').id);
    const dir = tempDir();
    try {
      const file = join(dir.path, 'nats-password');
      writeFileSync(file, `${creds.password}\n`, { mode: 0o600 });
      const env = nexusMcpEnv(creds, { passwordFile: file });
      expect(Object.values(env)).not.toContain(creds.password);
      const client = await startBridge(creds, env);
      clients.push(client);
      expect(json(await client.callTool({ name: 'skill_list', arguments: {} }))).toEqual({ skills: [] });
    } finally {
      dir.remove();
    }
  }, 60_000);

  it("keeps serving when core's nats-server dies: a call made while it is down lands once it is back", async () => {
    const creds = await f.core.platform.createRun(f.agent('survivor').id);
    const client = await startBridge(creds);
    clients.push(client);
    expect(json(await client.callTool({ name: 'skill_list', arguments: {} }))).toEqual({ skills: [] });
    process.kill(Number(f.core.platform.serverPid), 'SIGKILL');
    await expect.poll(() => f.core.status.get().nats.state).toBe('unavailable');
    const memory = json(
      await client.callTool({ name: 'memory_propose', arguments: { content: 'through the restart' } }),
    );
    expect(f.core.status.get().nats.state).toBe('running');
    expect(f.core.review.memories.pending().map((m) => [m.id, m.runId])).toEqual([[memory.id, creds.runId]]);
  }, 60_000);

  it("returns Core's typed errors as MCP tool errors (Core re-checks every call)", async () => {
    const agent = f.agent('narrow');
    const client = await startBridge(await f.core.platform.createRun(agent.id));
    clients.push(client);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('memory_search');
    // Changed in the store behind the bridge's back (no catalogue push): the offered tool is refused by Core.
    f.core.platform.agents.update(agent.id, { tools: ['skill.list'] });
    const res = (await client.callTool({ name: 'memory_search', arguments: { query: 'x' } })) as CallToolResult;
    expect(res.isError).toBe(true);
    expect(res.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^forbidden: .*allow-list/) });
    f.core.platform.agents.update(agent.id, { tools: [], permissions: [] });
    const denied = (await client.callTool({
      name: 'memory_propose',
      arguments: { content: 'x' },
    })) as CallToolResult;
    expect(denied.content[0]).toMatchObject({ text: expect.stringMatching(/^forbidden: .*memory\.write/) });
  }, 60_000);

  it('runs an external MCP server behind a tool allow-list (--filter): only allowed tools are listed and called', async () => {
    const creds = await f.core.platform.createRun(f.agent('filtered').id);
    // The server behind the filter is nexus-mcp itself, offering every tool.
    const client = await startBridge(creds, nexusMcpEnv(creds), [
      ...MAIN,
      '--filter',
      'skill_list,skill_view',
      '--',
      process.execPath,
      ...MAIN,
    ]);
    clients.push(client);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['skill_list', 'skill_view']);
    expect(json(await client.callTool({ name: 'skill_list', arguments: {} }))).toEqual({ skills: [] });
    await expect(client.callTool({ name: 'memory_propose', arguments: { content: 'x' } })).rejects.toThrow(
      /not allowed/,
    );
    expect(f.core.review.memories.pending()).toEqual([]);
  }, 60_000);

  it('serves MCP without tools while NATS is unreachable, so the agent still starts', async () => {
    const creds = await f.core.platform.createRun(f.agent('offline').id);
    const client = await startBridge(creds, {
      ...nexusMcpEnv(creds),
      NEXUS_NATS_URL: 'nats://127.0.0.1:1',
      NEXUS_CATALOG_WAIT_MS: '1000',
    });
    clients.push(client);
    expect((await client.listTools()).tools).toEqual([]);
  }, 60_000);

  it("cannot act as another run even when its env names that run's id", async () => {
    const alice = f.agent('alice');
    const bob = f.agent('bob');
    const aliceCreds = await f.core.platform.createRun(alice.id);
    const bobCreds = await f.core.platform.createRun(bob.id);
    // Alice's credentials, Bob's run id and inbox: the server refuses the subscription and the publish.
    const client = await startBridge(aliceCreds, {
      ...nexusMcpEnv(aliceCreds),
      NEXUS_RUN_ID: bobCreds.runId,
      NEXUS_INBOX_PREFIX: bobCreds.inboxPrefix,
      NEXUS_TOOL_TIMEOUT_MS: '2000',
      NEXUS_CATALOG_WAIT_MS: '1000',
    });
    clients.push(client);
    // Core never answers the forged run's catalogue, so nothing is offered; a call anyway is refused.
    expect((await client.listTools()).tools).toEqual([]);
    const res = (await client.callTool({ name: 'memory_propose', arguments: { content: 'as bob' } })) as CallToolResult;
    expect(res).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/disabled/) }] });
    expect(f.core.review.memories.pending()).toEqual([]);
  }, 60_000);
});
