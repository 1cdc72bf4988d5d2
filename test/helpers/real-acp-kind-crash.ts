import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { Session } from '../../shared/contract/sessions';
import type { Transcript } from '../../shared/contract/transcript';
import type { ModelReply } from './model-api';
import type { RecordedRequest } from './model-script';
import { tearDownCrashedCore } from './crashed-core-teardown';
import { readDb, startNexusProcess, type NexusProcess } from './nexus-process';
import type { RealAgentFleet } from './real-agent-fleet';
import { readUntil, waitFor } from './wait';

/** What the crash steps need of a kind (real-acp-kind.ts's adapter has it all). */
export interface AcpCrashKind<R extends RecordedRequest> {
  kind: string;
  /** The canary the operator's credential holds. */
  canary(fleet: RealAgentFleet): string;
  /** The user texts of a request, in order. */
  userTexts(req: R): string[];
  /** Whether the request's last message is a tool's result (the model is to go on after its call). */
  afterTool(req: R): boolean;
  /** The model's reply that makes the agent run `command` in its shell. */
  shell(command: string): ModelReply;
  /**
   * Set when the pinned CLI's session/load finds no conversation saved in the same clock minute (Gemini CLI 0.61,
   * gemini-cli #28775): the container restart waits for the next minute after the last turn, with why.
   */
  loadNeedsNextMinute?: string;
}

export interface AcpCrashContext<R extends RecordedRequest> {
  fleet(): RealAgentFleet;
  workspace: string;
  /** The suite's model answers by marker (a session's first prompt names its marker). */
  responders: Map<string, (r: R) => ModelReply | undefined>;
  turns(): R[];
}

/**
 * The two fault steps of the ACP kinds' suite, on the suite's running Nexus and container, last in the file. (1) The
 * agent's shell call runs (asked and allowed; it waits for a file the test writes later); core stops cleanly and
 * moves to a process of its own on the same data dir (`nexus serve`), which is SIGKILLed and started again; then the
 * file: the bridge owns the agent, so the same agent process finishes the turn, and its words, the tool card and the
 * turn's one end are in the new core's view. (2) `docker restart` of the container: a new bridge starts the agent
 * again and core resumes the conversation with session/load; the next message's model request carries the first turn.
 * Returns the clean-up the suite runs before its fleet's.
 */
export function acpCrashSteps<R extends RecordedRequest>(
  a: AcpCrashKind<R>,
  c: AcpCrashContext<R>,
): { tearDown(): Promise<void> } {
  let nexus: NexusProcess | undefined;
  let sessionId = '';
  let savedAt = 0;
  const marker = `crash-${randomBytes(3).toString('hex')}`;
  const firstTask = `${marker}: the task before the crash`;
  const done = `First task done (${marker}).`;
  const go = `go-${marker}`;
  const worktree = '/workspace/.nexus-worktrees/crash';
  const rpc = <T>(op: string, input: unknown): Promise<T> => nexus!.rpc<T>(op, input);
  const view = (): Promise<Transcript> => rpc<Transcript>('sessions.transcript', { session: sessionId, last: 2000 });
  const texts = (t: Transcript, type: string): string[] =>
    t.items.filter((i) => i.type === type).map((i) => (i as { text: string }).text);
  const link = (): { step: string; turn: number | null; bridge: string } | null =>
    readDb(
      c.fleet().dataDir,
      (db) =>
        (db
          .prepare('SELECT step, turn_prompt AS turn, bridge_run AS bridge FROM acp_links WHERE session_id = ?')
          .get(sessionId) as { step: string; turn: number | null; bridge: string } | undefined) ?? null,
    );
  /** The fleet's environment for `nexus serve`, with its agents' start time (the loaded machine's). */
  const env = (fleet: RealAgentFleet): Record<string, string> => ({
    ...fleet.env.env,
    NEXUS_AGENT_STARTUP_TIMEOUT_MS: '480000',
  });
  /** `pgrep -f` in the container; the bracket keeps the pattern from matching the shell that runs it. */
  const pids = async (pattern: string): Promise<string[]> =>
    (await c.fleet().sh(c.workspace, `pgrep -f '[${pattern[0]}]${pattern.slice(1)}' || true`)).stdout
      .split('\n')
      .filter(Boolean);

  /** What a crash step that waited in vain saw: the model requests since the restart, the pane, core's warnings. */
  const diagnosis = async (since: number): Promise<string> => {
    const asked = c
      .turns()
      .slice(since)
      .filter((t) => a.userTexts(t).some((x) => x.includes(marker)))
      .map((t) => (a.afterTool(t) ? 'after its tool' : `last user text ${JSON.stringify(a.userTexts(t).at(-1))}`));
    const pane = await c
      .fleet()
      .sh(c.workspace, "tmux capture-pane -p -J -S -60 -t '=nexus:=crash' 2>&1 | tail -40")
      .then((r) => r.stdout)
      .catch((e: unknown) => String(e));
    const log = join(c.fleet().dataDir, 'logs', 'nexus.log');
    const warnings = `${nexus?.output() ?? ''}\n${existsSync(log) ? readFileSync(log, 'utf8').slice(-400_000) : ''}`
      .split('\n')
      .filter((l) => /warn|error|fail/i.test(l))
      .slice(-30);
    return [
      `model requests of ${marker} since the restart: ${JSON.stringify(asked)}`,
      `the link: ${JSON.stringify(link())}`,
      `the pane:\n${pane}`,
      `core's warnings:\n${warnings.join('\n')}`,
    ].join('\n');
  };

  it('core kill -9 mid-turn: the same agent finishes the turn, its words, tool card and end are in the view after the restart', async () => {
    const fleet = c.fleet();
    c.responders.set(marker, (r) => {
      if (a.afterTool(r)) return { text: done };
      if (a.userTexts(r).at(-1) === firstTask)
        return a.shell(`while [ ! -e ${go} ]; do sleep 0.2; done; echo ran-${marker}`);
      return { text: 'OK.' };
    });
    sessionId = (await fleet.createSession(c.workspace, { name: 'crash', initialMessage: firstTask, agent: a.kind }))
      .id;
    // Allow the call (an agent may ask more than once for one command line) until it runs.
    await readUntil(
      async () => {
        for (const r of (await fleet.call('permissions.list', { sessionId })).requests)
          await fleet.call('permissions.decide', { id: r.id, behavior: 'allow' });
        return pids(go);
      },
      (p) => p.length > 0,
      480_000,
    );
    // Core moves to a process of its own on the same data dir (the vault opens from the keychain), to be SIGKILLed.
    await fleet.running.stop();
    nexus = await startNexusProcess(fleet.dataDir, env(fleet), { fromSource: true });
    expect(link()).toMatchObject({ step: 'ready', turn: 1 });
    const [bridgePid] = await pids(`nexus-acp-bridge.*--session ${sessionId}`);
    expect(bridgePid).toBeDefined();
    const agentPid = (await fleet.sh(c.workspace, `pgrep -P ${bridgePid}`)).stdout.trim();
    expect(agentPid).toMatch(/^\d+$/);

    await nexus.kill('SIGKILL');
    nexus = await startNexusProcess(fleet.dataDir, env(fleet), { fromSource: true });
    expect((await fleet.sh(c.workspace, `touch ${worktree}/${go}`)).exitCode).toBe(0);
    const turnsAtRestart = c.turns().length;
    const after = await readUntil(
      view,
      (t) => texts(t, 'agent').some((x) => x.includes(done)) && t.items.some((i) => i.type === 'turn_end'),
      480_000,
    ).catch(async (e: unknown) => {
      throw new Error(`${(e as Error).message.slice(0, 600)}\n${await diagnosis(turnsAtRestart)}`);
    });
    savedAt = Date.now();
    expect(after.items.filter((i) => i.type === 'turn_end')).toHaveLength(1);
    expect(texts(after, 'user')).toEqual([firstTask]);
    const tool = after.items.find((i) => i.type === 'tool' && JSON.stringify(i).includes(go));
    expect(tool, JSON.stringify(after.items)).toMatchObject({ status: 'completed' });
    // The same agent process: the kill ended no turn and no agent.
    expect((await fleet.sh(c.workspace, `kill -0 ${agentPid} && echo alive`)).stdout).toContain('alive');
    const s = await readUntil(
      () => rpc<Session>('sessions.get', { session: sessionId }),
      (x) => x.agentState === 'idle' || x.status !== 'running',
      60_000,
    );
    expect(s.status, s.reason ?? '').toBe('running');
    expect(link()).toMatchObject({ step: 'ready', turn: null });
  }, 1_200_000);

  it('a container restart: core resumes the conversation with session/load, the next turn carries the first', async () => {
    expect(sessionId).not.toBe('');
    if (a.loadNeedsNextMinute) {
      const minute = new Date(savedAt);
      minute.setSeconds(61, 0);
      await new Promise((r) => setTimeout(r, Math.max(0, minute.getTime() - Date.now())));
    }
    // Only this session is to start again: every agent of the container starting at once is slow on a loaded machine.
    const { sessions } = await rpc<{ sessions: { id: string }[] }>('sessions.list', { workspace: c.workspace });
    for (const other of sessions.filter((x) => x.id !== sessionId))
      await rpc('sessions.delete', { session: other.id, deleteBranch: true });
    const before = c.turns().length;
    const bridgeBefore = link()?.bridge;
    const container = (await rpc<{ containerId: string }>('workspaces.get', { workspace: c.workspace })).containerId;
    execFileSync('docker', ['restart', '-t', '2', container]);
    await waitFor(
      () => (link()?.bridge !== bridgeBefore && link()?.step === 'ready' ? true : null),
      'the conversation loaded again by a new bridge',
      480_000,
    );
    const back = await rpc<Session>('sessions.get', { session: sessionId });
    expect(back.status, back.reason ?? '').toBe('running');
    const text = `${marker}: the task after the restart`;
    const sent = await rpc<{ status: string }>('sessions.sendMessage', { session: sessionId, text });
    expect(['delivered', 'queued']).toContain(sent.status);
    const next = await waitFor(
      () =>
        c
          .turns()
          .slice(before)
          .find((t) => a.userTexts(t).at(-1) === text),
      'the message after the restart',
      300_000,
    );
    // The history came back with session/load: the first task and its answer are in the request.
    expect(a.userTexts(next)).toContain(firstTask);
    expect(JSON.stringify((next as unknown as { body: unknown }).body)).toContain(done);
    const t = await view();
    expect(texts(t, 'notice').filter((x) => /could not be loaded/.test(x))).toEqual([]);
    expect(nexus!.output()).not.toContain(a.canary(c.fleet()));
  }, 900_000);

  return {
    /** Stops the process core and starts the fleet's own again, which its dispose needs. */
    async tearDown() {
      if (!nexus) return;
      await tearDownCrashedCore(nexus, c.fleet().dataDir, c.workspace);
      await c.fleet().restart();
    },
  };
}
