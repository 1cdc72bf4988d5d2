import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../shared/contract/sessions';
import { sessionRig, type SessionRig } from '../../../test/helpers/session-rig';
import { waitFor } from '../../../test/helpers/wait';
import type { WorkspaceInfo } from '../workspaces/runtime';
import { sessionPaths } from './session-paths';
import { runFiles } from './launch/session-runs';

// Issue 17, item 6: nats-server killed while sessions run. Nexus restarts it on the same address
// with the same users; the sessions' agents are not relaunched, their next hook event moves the
// session's state, and platform-tool calls land, through the nexus-mcp the agent already had running
// and through one it starts afterwards. Real container, real nats-server, the agent fixture.

let rig: SessionRig;
let ws: WorkspaceInfo;
const container = (): string => ws.containerId as string;

/**
 * nexus-mcp kept running in the container the way the agent CLI keeps it for a whole session:
 * started from the session's --mcp-config, fed JSON-RPC lines through a FIFO, answers in a file.
 */
async function longLivedMcp(session: Session) {
  const config = runFiles(sessionPaths(rig.config, session.id, session.name).stateDir).mcpConfig;
  const dir = `/tmp/long-mcp-${session.id}`;
  const keeper = [
    "const fs=require('fs'),{spawn}=require('child_process');const [cfg,d]=process.argv.slice(2);",
    "const s=JSON.parse(fs.readFileSync(cfg,'utf8')).mcpServers.nexus;",
    'const c=spawn(s.command,s.args||[],{env:{...process.env,...s.env},',
    "stdio:['pipe',fs.openSync(d+'/out','a'),fs.openSync(d+'/err','a')]});",
    "const feed=()=>fs.createReadStream(d+'/in').on('data',x=>c.stdin.write(x)).on('end',feed);feed();",
    'c.on("exit",()=>process.exit(0));',
  ].join('');
  await rig.sh(container(), `mkdir -p ${dir} && mkfifo ${dir}/in && : > ${dir}/out && cat > ${dir}/keeper.js`, keeper);
  await rig.sh(container(), `(setsid node ${dir}/keeper.js ${config} ${dir} </dev/null >/dev/null 2>&1 &)`);
  let nextId = 1;
  const send = (msg: object): Promise<string> =>
    rig.sh(container(), `cat > ${dir}/in`, `${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
  const request = async (method: string, params: object): Promise<Record<string, unknown>> => {
    const id = nextId++;
    await send({ id, method, params });
    return waitFor(
      async () =>
        (await rig.sh(container(), `cat ${dir}/out`))
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { id?: number; result?: Record<string, unknown> })
          .find((m) => m.id === id)?.result,
      `nexus-mcp to answer request ${id}`,
      45_000,
    );
  };
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 't', version: '0' },
  });
  await send({ method: 'notifications/initialized' });
  return {
    pid: async () => (await rig.sh(container(), `pgrep -f "node /opt/nexus/nexus-mcp.cjs" | head -1`)).trim(),
    call: async (name: string, args: object): Promise<Record<string, unknown>> => {
      const result = (await request('tools/call', { name, arguments: args })) as {
        isError?: boolean;
        content: { text: string }[];
      };
      expect(result.isError).toBeFalsy();
      return JSON.parse(result.content[0]?.text ?? 'null') as Record<string, unknown>;
    },
  };
}

beforeAll(async () => {
  rig = await sessionRig();
  ws = await rig.addWorkspace('natsfault');
}, 120_000);

afterAll(async () => {
  await rig?.dispose();
});

describe('nats-server killed while sessions run (docker, real nats-server, agent fixture)', () => {
  it('is restarted by Nexus; the next hook moves the state and tool calls land, with no relaunch', async () => {
    const started = await Promise.all(
      ['one', 'two'].map(
        (name) =>
          new Promise<Session>(
            (resolve, reject) => void rig.service.create({ workspace: ws.id, name }, resolve).catch(reject),
          ),
      ),
    );
    for (const s of started)
      await waitFor(async () => (await rig.service.get(s.id)).agentState === 'idle', `${s.name} to be idle`, 60_000);
    const [one, two] = started as [Session, Session];
    const mcp = await longLivedMcp(one);
    expect(await mcp.call('skill_list', {})).toEqual({ skills: [] });
    const mcpPid = await mcp.pid();

    const { platform, status } = rig.host.core;
    const url = platform.url;
    const pid = Number(platform.serverPid);
    process.kill(pid, 'SIGKILL');
    await waitFor(() => status.get().nats.state === 'unavailable' || platform.serverPid !== pid, 'the exit to be seen');
    await waitFor(() => status.get().nats.state === 'running', 'NATS to be running again', 20_000);
    expect(platform.serverPid).not.toBe(pid);
    expect(platform.url).toBe(url);

    // The next hook event of each running agent moves its session (their hook credentials survived).
    await rig.ctl(container(), one.id, { fire: 'UserPromptSubmit', fields: { prompt: 'after the restart' } });
    await rig.ctl(container(), two.id, { fire: 'Notification', fields: { notification_type: 'agent_needs_input' } });
    await waitFor(async () => (await rig.service.get(one.id)).agentState === 'working', 'one to be working');
    await waitFor(async () => (await rig.service.get(two.id)).agentState === 'waiting_input', 'two to wait for input');

    // The nexus-mcp the agent already had reconnected by itself and its call lands, as the session's run.
    const memory = await mcp.call('memory_propose', { content: 'survived the nats restart' });
    expect(await mcp.pid()).toBe(mcpPid);
    const runId = (rig.db.prepare('SELECT run_id AS r FROM sessions WHERE id = ?').get(one.id) as { r: string }).r;
    expect(rig.host.core.review.memories.get(String(memory.id))).toMatchObject({ runId });
    // A nexus-mcp started after the restart (a fresh agent call) connects with the same credentials.
    const fresh = JSON.parse(
      await rig.ctl(container(), two.id, { mcp: { server: 'nexus', tool: 'skill_list', arguments: {} } }),
    ) as { ok: boolean; error?: string };
    expect(fresh).toMatchObject({ ok: true });

    // Nothing was relaunched: one launch each, both still running.
    for (const s of started) {
      const launches = (await rig.records(container(), s.id)).filter((r) => r.kind === 'launch');
      expect(launches).toHaveLength(1);
      expect((await rig.service.get(s.id)).status).toBe('running');
    }
  }, 240_000);
});
