import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventMessage } from '../../../shared/contract';
import { actorLabel } from '../../../shared/contract/platform';
import type { Session } from '../../../shared/contract/sessions';
import { sessionRig, type SessionRig } from '../../../test/helpers/session-rig';
import { waitFor } from '../../../test/helpers/wait';
import { operatorContext } from '../handlers';
import type { WorkspaceInfo } from '../workspaces/runtime';
import { sessionPaths } from './session-paths';
import { runFiles } from './launch/session-runs';
import { autoStartFor } from './session-platform';
import { createLogger } from '../log';

/** Sessions run on tasks: the goal, task and board tools from inside, the Board, summaries, self-gating. */
let rig: SessionRig;
let ws: WorkspaceInfo;
const op = operatorContext('internal');
const events: EventMessage[] = [];

const container = (w: WorkspaceInfo): string => w.containerId as string;
const runIdOf = (sessionId: string): string =>
  (rig.db.prepare('SELECT run_id FROM sessions WHERE id = ?').get(sessionId) as { run_id: string }).run_id;

async function started(name: string, opts: { initialMessage?: string; taskId?: string; w?: WorkspaceInfo } = {}) {
  const w = opts.w ?? ws;
  const s = await new Promise<Session>(
    (resolve, reject) =>
      void rig.service
        .create(
          {
            workspace: w.name,
            name,
            ...(opts.initialMessage ? { initialMessage: opts.initialMessage } : {}),
            ...(opts.taskId ? { taskId: opts.taskId } : {}),
          },
          resolve,
        )
        .catch(reject),
  );
  expect(s.status).toBe('running');
  await waitFor(
    async () => (await rig.records(container(w), s.id)).find((r) => r.kind === 'hook' && r.event === 'SessionStart'),
    'the agent to start',
  );
  return s;
}

/** Has the session's fixture call a tool through its --mcp-config's server; the tool's JSON, or its error text. */
async function tool(sessionId: string, name: string, args: Record<string, unknown> = {}, w = ws, server = 'nexus') {
  const reply = JSON.parse(
    await rig.ctl(container(w), sessionId, { mcp: { server, tool: name, arguments: args } }),
  ) as { ok: boolean; error?: string; result?: { isError?: boolean; content: { text: string }[] } };
  const text = reply.result?.content[0]?.text ?? reply.error ?? '';
  if (!reply.ok || reply.result?.isError) return { error: text };
  return { ok: (server === 'nexus' ? JSON.parse(text) : { text }) as Record<string, unknown> };
}

/** A minimal stdio MCP server: `token_hash` answers the sha256 of its API_TOKEN, `other` answers "other". */
const ECHO_SERVER = `const c=require('crypto');const send=m=>process.stdout.write(JSON.stringify(m)+'\\n');
require('readline').createInterface({input:process.stdin}).on('line',l=>{const m=JSON.parse(l);if(m.id===undefined)return;
if(m.method==='initialize')send({jsonrpc:'2.0',id:m.id,result:{protocolVersion:m.params.protocolVersion,
  capabilities:{tools:{}},serverInfo:{name:'ext',version:'1'}}});
else if(m.method==='tools/list')send({jsonrpc:'2.0',id:m.id,result:{tools:[{name:'token_hash',inputSchema:{type:'object'}},
  {name:'other',inputSchema:{type:'object'}}]}});
else if(m.method==='tools/call')send({jsonrpc:'2.0',id:m.id,result:{content:[{type:'text',
  text:m.params.name==='other'?'other':c.createHash('sha256').update(process.env.API_TOKEN||'').digest('hex')}]}});
else send({jsonrpc:'2.0',id:m.id,result:{}});});`;

const board = async () => (await rig.host.core.dispatcher.call('board.list', {}, op)).tasks;

beforeAll(async () => {
  rig = await sessionRig();
  ws = await rig.addWorkspace('flow');
  rig.events.subscribe((e) => events.push(e));
}, 120_000);

afterAll(async () => {
  await rig?.dispose();
}, 180_000);

describe('sessions on tasks (docker, NATS, nexus-mcp, agent fixture)', () => {
  let beta: Session;

  it('runs a session on its initial message as the goal; task.subtask, task.delegate and board.comment work from inside', async () => {
    beta = await started('beta', { initialMessage: 'Fix the login redirect\n\nUsers land on /404 after sign-in.' });
    expect(beta.taskId).toBeTruthy();
    expect(beta.toolsReason).toBeNull();
    const run = rig.host.core.platform.runs.get(runIdOf(beta.id));
    expect(run?.taskId).toBe(beta.taskId);

    const sub = await tool(beta.id, 'task_subtask', { title: 'Write a failing test' });
    expect(sub.ok).toMatchObject({ status: 'planned', dependsOn: [beta.taskId] });
    const delegated = await tool(beta.id, 'task_delegate', { title: 'Review the fix', roleHint: 'reviewer' });
    expect(delegated.ok).toMatchObject({ status: 'ready_for_agent', roleHint: 'reviewer' });
    expect((await tool(beta.id, 'board_comment', { body: 'Found it: the callback URL' })).ok).toMatchObject({
      taskId: beta.taskId,
    });

    const tasks = await board();
    const goal = tasks.find((t) => t.id === beta.taskId);
    expect(goal).toMatchObject({
      title: 'Fix the login redirect',
      status: 'in_progress',
      workspaceName: 'flow',
      sessions: [{ id: beta.id, name: 'beta', workspaceName: 'flow' }],
    });
    expect(goal?.comments.map((c) => [c.body, actorLabel(c.by), c.by.sessionId])).toEqual([
      ['Found it: the callback URL', 'flow · beta', beta.id],
    ]);
    const review = tasks.find((t) => t.id === delegated.ok?.id);
    expect(review).toMatchObject({ status: 'ready_for_agent', roleHint: 'reviewer', workspaceName: 'flow' });
    expect(review?.createdBy && actorLabel(review.createdBy)).toBe('flow · beta');
    expect(events.filter((e) => e.name === 'board.changed').map((e) => e.payload)).toEqual(
      expect.arrayContaining([{ taskId: beta.taskId }, { taskId: delegated.ok?.id }]),
    );
  });

  it('starts a session on a delegated task the operator picks; the task goes in progress', async () => {
    const review = (await board()).find((t) => t.status === 'ready_for_agent');
    const gamma = await started('gamma', { taskId: review?.id as string });
    expect(gamma.taskId).toBe(review?.id);
    expect(rig.host.core.platform.runs.get(runIdOf(gamma.id))?.taskId).toBe(review?.id);
    expect((await tool(gamma.id, 'board_comment', { body: 'Reviewing' })).ok).toMatchObject({ taskId: review?.id });
    expect((await board()).find((t) => t.id === review?.id)).toMatchObject({
      status: 'in_progress',
      sessions: [{ name: 'gamma' }],
    });
  });

  it("keeps the agent's last message of a Stop as the run's summary, which run.search recalls later", async () => {
    await rig.ctl(container(ws), beta.id, {
      fire: 'Stop',
      fields: { stop_hook_active: false, last_assistant_message: 'The login redirect used a stale callback URL.' },
    });
    const runId = runIdOf(beta.id);
    await waitFor(() => rig.host.core.platform.runs.get(runId)?.summary.includes('stale callback'), 'the Stop summary');
    await rig.service.delete(beta.id);
    expect(rig.host.core.platform.runs.get(runId)).toMatchObject({
      status: 'finished',
      summary: 'The login redirect used a stale callback URL.',
    });
    const delta = await started('delta');
    const found = await tool(delta.id, 'run_search', { query: 'callback redirect' });
    expect((found.ok?.runs as { id: string; summary: string }[]).map((r) => r.id)).toEqual([runId]);
  });

  it("offers a running session's agent only what its record allows, and Core refuses the rest", async () => {
    const s = (await rig.service.list()).find((x) => x.name === 'delta') as Session;
    const agent = rig.host.core.platform.agents.get(rig.host.core.platform.runs.get(runIdOf(s.id))?.agentId ?? '');
    await rig.host.core.dispatcher.call('agents.update', { id: agent?.id ?? '', permissions: [] }, op);
    expect((await tool(s.id, 'memory_propose', { content: 'x' })).error).toMatch(/disabled|forbidden/);
    expect((await tool(s.id, 'skill_list')).ok).toEqual({ skills: [] });
    await rig.host.core.dispatcher.call(
      'agents.update',
      { id: agent?.id ?? '', permissions: ['memory.write', 'skill.write', 'task.write', 'board.write'] },
      op,
    );
  });

  it("writes the agent's external MCP servers beside nexus: secrets reach the server only, a broken one stops nothing", async () => {
    await rig.host.core.dispatcher.call('vault.init', {}, op).catch(() => undefined);
    const token = `ext-token-${randomBytes(8).toString('hex')}`;
    await rig.host.core.dispatcher.call('secrets.create', { name: 'ext-token', kind: 'generic', value: token }, op);
    const agent = rig.host.core.platform.agents.byName(`workspace:${ws.id}`);
    await rig.host.core.dispatcher.call(
      'agents.update',
      {
        id: agent?.id ?? '',
        mcpServers: [
          { name: 'ext', command: 'node', args: ['-e', ECHO_SERVER], env: { API_TOKEN: { vault: 'ext-token' } } },
          { name: 'narrow', command: 'node', args: ['-e', ECHO_SERVER], tools: ['other'] },
          { name: 'broken', command: '/no/such/server' },
          { name: 'off', command: 'node', args: ['-e', ECHO_SERVER], disabled: true },
        ],
      },
      op,
    );
    const s = await started('ext');
    const hash = createHash('sha256').update(token).digest('hex');
    expect((await tool(s.id, 'token_hash', {}, ws, 'ext')).ok).toEqual({ text: hash });
    expect((await tool(s.id, 'other', {}, ws, 'narrow')).ok).toEqual({ text: expect.any(String) });
    expect((await tool(s.id, 'token_hash', {}, ws, 'narrow')).error).toMatch(/not allowed/);
    expect((await tool(s.id, 'skill_list')).ok).toEqual({ skills: [] });
    expect((await tool(s.id, 'x', {}, ws, 'off')).error).toMatch(/no MCP server "off"/);
    expect((await rig.service.get(s.id)).status).toBe('running');
    const p = sessionPaths(rig.config, s.id, s.name);
    const inspect = JSON.stringify(await rig.docker.getContainer(container(ws)).inspect());
    const script = await rig.sh(container(ws), `cat '${p.launchScript}'`);
    const launch = JSON.stringify((await rig.records(container(ws), s.id)).find((r) => r.kind === 'launch'));
    for (const text of [inspect, script, launch]) expect(text).not.toContain(token);
    expect(await rig.sh(container(ws), `stat -c '%a' '${runFiles(p.stateDir).mcpConfig}'`)).toBe('600\n');
    await rig.host.core.dispatcher.call('agents.update', { id: agent?.id ?? '', mcpServers: [] }, op);
  });

  it('auto-starts a session on each delegated task when the agent opts in, at most the cap at once', async () => {
    const auto = await rig.addWorkspace('auto');
    const lead = await started('lead', { w: auto, initialMessage: 'Split the release work' });
    const agent = rig.host.core.platform.agents.byName(`workspace:${auto.id}`);
    await rig.host.core.dispatcher.call(
      'agents.update',
      { id: agent?.id ?? '', autoStart: true, maxAutoSessions: 1 },
      op,
    );
    const sub = autoStartFor({
      db: rig.db,
      platform: rig.host.core.platform,
      events: rig.events,
      sessions: rig.service,
      log: createLogger({ redactor: rig.host.core.redactor }),
    });
    try {
      const first = (await tool(lead.id, 'task_delegate', { title: 'Write the changelog' }, auto)).ok;
      const second = (await tool(lead.id, 'task_delegate', { title: 'Tag the release' }, auto)).ok;
      const onTask = async (id: unknown) => (await rig.service.list(auto.id)).find((x) => x.taskId === id);
      const a = await waitFor(() => onTask(first?.id), 'a session on the first delegated task');
      expect(a.name).toMatch(/^write-the-changelog-/);
      await rig.service.idle();
      expect(await onTask(second?.id)).toBeUndefined();
      await rig.service.delete(a.id);
      await waitFor(() => onTask(second?.id), 'a session on the second once the first is gone');
    } finally {
      sub.dispose();
    }
  }, 90_000);

  it('with nexus-mcp turned off (NEXUS_MCP_ENABLED=0) a session starts without platform tools and says why', async () => {
    rig.config.nexusMcpEnabled = false;
    try {
      rig.restart();
      const off = await started('off');
      expect(off.toolsReason).toMatch(/NEXUS_MCP_ENABLED=0/);
      expect((await rig.service.get(off.id)).toolsReason).toMatch(/NEXUS_MCP_ENABLED=0/);
      const launch = (await rig.records(container(ws), off.id)).find((r) => r.kind === 'launch') as { argv: string[] };
      const files = runFiles(sessionPaths(rig.config, off.id, off.name).stateDir);
      expect(launch.argv).not.toContain(`--mcp-config=${files.mcpConfig}`);
    } finally {
      rig.config.nexusMcpEnabled = true;
      rig.restart();
    }
  });

  it('with no nexus-mcp in the image a session starts without platform tools and says why', async () => {
    const bare = await rig.addWorkspace('bare');
    await rig.exec(container(bare), ['rm', '-f', '/opt/nexus/bin/nexus-mcp'], { user: '0:0' });
    const s = await started('alone', { w: bare });
    expect(s.toolsReason).toMatch(/no nexus-mcp/);
  });

  it('with NATS stopped a session still starts, without platform tools, and says why', async () => {
    await rig.host.core.platform.dispose();
    const later = await rig.addWorkspace('later');
    const s = await started('epsilon', { w: later, initialMessage: 'hello' });
    expect(s.toolsReason).toMatch(/Platform tools are off/);
    expect(s.toolsReason).toMatch(/stopped|NATS|nats/);
  });
});
