import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../../shared/contract/sessions';
import { sessionRig, type SessionRig } from '../../../../test/helpers/session-rig';
import { operatorContext } from '../../handlers';
import { createLogger } from '../../log';
import { Redactor } from '../../redact';
import { convergeOnWorkspaceStart } from '../converge/converge-on-start';
import { runFiles } from './session-runs';
import { sessionPaths } from '../session-paths';
import type { WorkspaceInfo } from '../../workspaces/runtime';
import { WorkspaceEvents } from '../../workspaces/workspace-events';
import { waitFor } from '../../../../test/helpers/wait';

let rig: SessionRig;
let ws: WorkspaceInfo;
const op = operatorContext('internal');

const until = <T>(check: () => Promise<T> | T, ms = 20_000): Promise<NonNullable<T>> =>
  waitFor(check, 'the session to get there', ms);

const container = (w: WorkspaceInfo): string => w.containerId as string;
const runIdOf = (sessionId: string): string | null =>
  (rig.db.prepare('SELECT run_id FROM sessions WHERE id = ?').get(sessionId) as { run_id: string | null } | undefined)
    ?.run_id ?? null;
const runOf = (runId: string) => rig.host.core.platform.runs.get(runId);

async function started(name: string, w: WorkspaceInfo = ws): Promise<Session> {
  const s = await new Promise<Session>(
    (resolve, reject) => void rig.service.create({ workspace: w.name, name }, resolve).catch(reject),
  );
  expect(s.status).toBe('running');
  await until(async () =>
    (await rig.records(container(w), s.id)).find((r) => r.kind === 'hook' && r.event === 'SessionStart'),
  );
  return s;
}

/** Has the session's fixture call a tool through the MCP server its --mcp-config names; returns the tool's JSON. */
async function callTool(
  w: WorkspaceInfo,
  sessionId: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const reply = JSON.parse(
    await rig.ctl(container(w), sessionId, { mcp: { server: 'nexus', tool, arguments: args } }),
  ) as {
    ok: boolean;
    error?: string;
    result?: { isError?: boolean; content: { text: string }[] };
  };
  expect(reply.error).toBeUndefined();
  expect(reply.result?.isError).toBeFalsy();
  return JSON.parse(reply.result?.content[0]?.text ?? 'null') as Record<string, unknown>;
}

beforeAll(async () => {
  rig = await sessionRig();
  ws = await rig.addWorkspace('tools');
}, 120_000);

afterAll(async () => {
  await rig?.dispose();
});

describe('platform tools in sessions (docker, NATS, nexus-mcp, agent fixture)', () => {
  let session: Session;

  it("gives each session its own platform run under the workspace's agent and launches it with that run's MCP config", async () => {
    session = await started('helper');
    const runId = runIdOf(session.id);
    expect(runId).toBeTruthy();
    expect(runOf(runId as string)).toMatchObject({ sessionId: session.id, status: 'running' });
    const agent = rig.host.core.platform.agents.get(runOf(runId as string)?.agentId ?? '');
    expect(agent).toMatchObject({ name: `workspace:${ws.id}`, project: ws.id });

    const second = await started('helper-2');
    const secondRun = runOf(runIdOf(second.id) as string);
    expect(secondRun?.agentId).toBe(agent?.id);
    expect(secondRun?.id).not.toBe(runId);

    const files = runFiles(sessionPaths(rig.config, session.id, session.name).stateDir);
    const launch = (await rig.records(container(ws), session.id)).find((r) => r.kind === 'launch') as {
      argv: string[];
    };
    expect(launch.argv).toContain(`--mcp-config=${files.mcpConfig}`);
    const modes = await rig.sh(container(ws), `stat -c '%a' '${files.passwordFile}' '${files.mcpConfig}'`);
    expect(modes.trim().split('\n')).toEqual(['600', '600']);
  });

  it('lets the agent propose a memory through nexus-mcp, which waits for review, and find it once approved', async () => {
    const proposed = await callTool(ws, session.id, 'memory_propose', {
      content: 'Deploy with the blue-green playbook',
      scope: 'project',
    });
    expect(proposed.status).toBe('pending');
    const queue = await rig.host.core.dispatcher.call('review.list', {}, op);
    expect(queue.memories.map((m) => m.id)).toContain(proposed.id);
    expect((await callTool(ws, session.id, 'memory_search', { query: 'blue-green playbook' })).memories).toEqual([]);

    await rig.host.core.dispatcher.call('review.approveMemory', { id: String(proposed.id) }, op);
    const found = (await callTool(ws, session.id, 'memory_search', { query: 'blue-green playbook' })).memories as {
      id: string;
      status: string;
    }[];
    expect(found.map((m) => m.id)).toEqual([proposed.id]);
    expect(found[0]?.status).toBe('active');
    const recorded = (await rig.records(container(ws), session.id)).filter((r) => r.kind === 'mcp');
    expect(recorded.map((r) => r.tool)).toEqual(['memory_propose', 'memory_search', 'memory_search']);
  });

  it('keeps the run password out of docker inspect, the launch argv, the launch script and the MCP config', async () => {
    const p = sessionPaths(rig.config, session.id, session.name);
    const files = runFiles(p.stateDir);
    const password = (await rig.sh(container(ws), `cat '${files.passwordFile}'`)).trim();
    expect(password.length).toBeGreaterThanOrEqual(24);
    const config = JSON.parse(await rig.sh(container(ws), `cat '${files.mcpConfig}'`)) as {
      mcpServers: { nexus: { command: string; env: Record<string, string> } };
    };
    expect(config.mcpServers.nexus.command).toBe('/opt/nexus/bin/nexus-mcp');
    expect(config.mcpServers.nexus.env).toMatchObject({
      NEXUS_RUN_ID: runIdOf(session.id),
      NEXUS_NATS_PASSWORD_FILE: files.passwordFile,
    });
    expect(config.mcpServers.nexus.env.NEXUS_NATS_PASSWORD).toBeUndefined();

    const inspect = JSON.stringify(await rig.docker.getContainer(container(ws)).inspect());
    const launch = JSON.stringify((await rig.records(container(ws), session.id)).find((r) => r.kind === 'launch'));
    const script = await rig.sh(container(ws), `cat '${p.launchScript}'`);
    for (const text of [inspect, launch, script, JSON.stringify(config)]) expect(text).not.toContain(password);
  });

  it('launches sessions created together each with its own run files, past one whose worktree cannot be added', async () => {
    // The branch of one of them is checked out elsewhere: git refuses its worktree.
    await rig.sh(container(ws), 'git -C /workspace worktree add -q -b nexus/blocked /tmp/elsewhere HEAD');
    const made = await Promise.all(
      ['together-a', 'blocked', 'together-c'].map((name) => rig.service.create({ workspace: ws.name, name })),
    );
    await rig.service.idle();
    const [a, blocked, c] = made as [Session, Session, Session];
    expect(await rig.service.get(blocked.id)).toMatchObject({ status: 'error' });
    for (const s of [a, c]) {
      expect((await rig.service.get(s.id)).status).toBe('running');
      const files = runFiles(sessionPaths(rig.config, s.id, s.name).stateDir);
      const config = JSON.parse(await rig.sh(container(ws), `cat '${files.mcpConfig}'`)) as {
        mcpServers: { nexus: { env: Record<string, string> } };
      };
      expect(config.mcpServers.nexus.env.NEXUS_RUN_ID).toBe(runIdOf(s.id));
      const modes = await rig.sh(container(ws), `stat -c '%a' '${files.passwordFile}' '${files.mcpConfig}'`);
      expect(modes.trim().split('\n')).toEqual(['600', '600']);
      await until(async () =>
        (await rig.records(container(ws), s.id)).find((r) => r.kind === 'hook' && r.event === 'SessionStart'),
      );
      // Its nexus-mcp signs in with its own run's password file.
      expect((await callTool(ws, s.id, 'memory_search', { query: 'anything' })).memories).toEqual([]);
    }
    for (const s of made) await rig.service.delete(s.id);
    await rig.sh(
      container(ws),
      'git -C /workspace worktree remove --force /tmp/elsewhere && git -C /workspace branch -D nexus/blocked',
    );
  });

  it('ends the run and removes its files when the session is deleted', async () => {
    const runId = runIdOf(session.id) as string;
    const p = sessionPaths(rig.config, session.id, session.name);
    await rig.service.delete(session.id);
    expect(runOf(runId)).toMatchObject({ status: 'finished', summary: 'The session was deleted.' });
    expect(await rig.sh(container(ws), `test -e '${p.stateDir}' && echo there || echo gone`)).toBe('gone\n');
  });

  it('gives a session relaunched by converge a new run, ending the old one, and its tools work', async () => {
    const s = (await rig.service.list()).find((x) => x.name === 'helper-2') as Session;
    const oldRun = runIdOf(s.id) as string;
    const windowId = (rig.db.prepare('SELECT window_id FROM sessions WHERE id = ?').get(s.id) as { window_id: string })
      .window_id;
    await rig.sh(container(ws), `tmux kill-window -t '${windowId}'`);
    const report = await rig.restart().converge(ws.id);
    expect(report.relaunched).toEqual([s.id]);
    const newRun = runIdOf(s.id) as string;
    expect(newRun).not.toBe(oldRun);
    expect(runOf(oldRun)?.status).toBe('cancelled');
    expect(runOf(newRun)).toMatchObject({ status: 'running', sessionId: s.id });
    await until(async () => (await rig.records(container(ws), s.id)).filter((r) => r.kind === 'launch').length === 2);
    const found = (await callTool(ws, s.id, 'memory_search', { query: 'playbook' })).memories as unknown[];
    expect(found).toHaveLength(1);
  });

  it("ends the runs of a deleted workspace's sessions", async () => {
    const gone = await rig.addWorkspace('gone');
    const s = await started('doomed', gone);
    const runId = runIdOf(s.id) as string;
    rig.db.prepare('DELETE FROM workspaces WHERE id = ?').run(gone.id);
    const log = createLogger({ redactor: new Redactor() });
    const signals = new WorkspaceEvents(log);
    const sub = convergeOnWorkspaceStart(signals, rig.service, log);
    try {
      signals.emit('removed', { workspaceId: gone.id });
      await until(() => runOf(runId)?.status === 'cancelled');
    } finally {
      sub.dispose();
    }
    expect(runOf(runId)?.summary).toBe('Its session was removed.');
  });
});
