import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../../shared/contract/sessions';
import { dockerExec } from '../../../../test/helpers/agent-cli';
import { tearDownCrashedCore } from '../../../../test/helpers/crashed-core-teardown';
import type { ModelReply } from '../../../../test/helpers/model-api';
import {
  runningWorkspace,
  sessionRunId,
  startNexusProcess,
  type NexusProcess,
} from '../../../../test/helpers/nexus-process';
import { giveAgentCredential, startRealAgentEnv, type RealAgentEnv } from '../../../../test/helpers/real-agent-env';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { readUntil, waitFor } from '../../../../test/helpers/wait';
import { SessionsConfig } from '../../sessions/config';

// Issue 17, item 5: `kill -9` of core (`nexus serve`, the built CLI, in its own process) with a
// real-CLI session running. While core is down the operator's message reaches the agent through its
// inbox and the agent starts a turn (its hooks wait in the relay; its model request, through core's gateway, is
// retried by the CLI). Core is started again on the same data dir; the retry lands on it; the agent is not
// relaunched. Its next hook event moves the session's state (working, then
// idle), and the platform-tool call it makes in that turn lands through the nexus-mcp it started
// before the crash, as the session's own run.

const defaults = SessionsConfig.parse({});
const dir = tempDir('nexus-core-kill-');
const dataDir = join(dir.path, 'data');
const workspace = `kill-${process.pid}`;
let env: RealAgentEnv;
let nexus: NexusProcess;
let containerId = '';

/**
 * A reply the test hands the stand-in later: the CLI waits on it (the agent is mid-turn meanwhile).
 * `asked` resolves when the request arrives (the stand-in records a request only once it is answered).
 */
function held(): { promise: Promise<ModelReply>; give(r: ModelReply): void; asked: Promise<void>; ask(): void } {
  let give: (r: ModelReply) => void = () => undefined;
  let ask: () => void = () => undefined;
  const promise = new Promise<ModelReply>((r) => (give = r));
  const asked = new Promise<void>((r) => (ask = r));
  return { promise, give, asked, ask };
}
const duringOutage = held();
const afterTool = held();

const get = (id: string) => nexus.rpc<Session>('sessions.get', { session: id });
const runOf = (sessionId: string): string | null => sessionRunId(dataDir, sessionId);
const windowsOf = async (): Promise<string> =>
  (
    await dockerExec(containerId, [
      'tmux',
      'list-windows',
      '-t',
      `=${defaults.tmuxSession}`,
      '-F',
      '#{window_name} #{window_id}',
    ])
  ).stdout;

/** Waits for `p`; after `ms`, fails with what `what` says. */
async function within(p: Promise<void>, ms: number, what: () => Promise<string>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), ms)));
  const won = await Promise.race([p.then(() => 'ok' as const), late]);
  clearTimeout(timer);
  if (won === 'late') throw new Error(`timed out waiting for ${await what()}`);
}

beforeAll(async () => {
  env = await startRealAgentEnv();
  env.api.onTurn((req) => {
    const said = JSON.stringify(req.body.messages);
    const wait = said.includes('tool_result')
      ? afterTool
      : said.includes('the task sent while core was down')
        ? duringOutage
        : null;
    if (wait) {
      wait.ask();
      return wait.promise;
    }
    return { text: 'First task done.' };
  });
  nexus = await startNexusProcess(dataDir, env.env);
  await nexus.rpc('vault.init', {});
  await giveAgentCredential((op, input) => nexus.rpc(op, input), env.canary);
  containerId = await runningWorkspace(nexus, workspace, env.repo.url);
}, 600_000);

afterAll(async () => {
  duringOutage.give({ text: 'stop' });
  afterTool.give({ text: 'stop' });
  await tearDownCrashedCore(nexus, dataDir, workspace);
  await env?.close();
  dir.remove();
}, 180_000);

describe('kill -9 of core with a real-CLI session running', () => {
  it('after the restart the next hook event moves the state and the platform call lands, with no relaunch', async () => {
    const created = await nexus.rpc<Session>('sessions.create', {
      workspace,
      name: 'live',
      initialMessage: 'the first task',
    });
    await readUntil(
      () => get(created.id),
      (s) => (s.agentState === 'idle' && env.api.turns().length > 0) || s.status === 'error',
      300_000,
    );
    expect((await get(created.id)).agentState).toBe('idle');
    const windowBefore = await windowsOf();
    const runBefore = runOf(created.id);
    expect(runBefore).toBeTruthy();

    await nexus.kill('SIGKILL');
    // Core is gone; the operator's message reaches the agent through its inbox and the agent starts working (its
    // hooks wait in the relay).
    const sent = await dockerExec(
      containerId,
      ['node', `${defaults.toolsDir}/nexus-inbox-send.cjs`, defaults.stateDir, created.id],
      { stdin: 'the task sent while core was down' },
    );
    expect(sent.stdout).toMatch(/"outcome":"(delivered|sent)"/);

    // Its model requests go through core's gateway, gone with core: the CLI retries them (with backoff) until the
    // restarted core takes one (same port, kept in the data dir), and the turn goes on.
    const restartedAt = new Date().toISOString();
    nexus = await startNexusProcess(dataDir, env.env);
    await within(duringOutage.asked, 180_000, async () => {
      const pane = await dockerExec(containerId, ['tmux', 'capture-pane', '-p', '-t', `=${defaults.tmuxSession}:live`]);
      const paneEnd = pane.stdout
        .split('\n')
        .filter((l) => l.trim())
        .slice(-8);
      const gatewayLog = nexus
        .output()
        .split('\n')
        .filter((l) => /gateway/i.test(l))
        .slice(-6);
      return [
        `the agent's turn for the message, ${Math.round((Date.now() - Date.parse(restartedAt)) / 1000)} s after core`,
        `was started again (inbox: ${sent.stdout.trim()})`,
        "the pane's last lines:",
        ...paneEnd,
        "the restarted core's gateway log:",
        ...gatewayLog,
      ].join('\n');
    });
    // Converge leaves the live agent alone: same window, same run, one launch.
    await waitFor(async () => (await get(created.id)).status === 'running', 'the session after the restart');
    expect(await windowsOf()).toBe(windowBefore);

    // The agent's next step: a platform tool. Its PreToolUse hook tells the new core it is working.
    duringOutage.give({
      toolUse: { name: 'mcp__nexus__memory_propose', input: { content: 'learned while core was down' } },
    });
    // Moved by a hook the agent sent after the restart. What it raised while core was down waited in the relay and
    // arrives first, stamped before the restart (core-away.test.ts), so a "working" from then is not this one.
    const working = await readUntil(
      () => get(created.id),
      (s) => s.agentState === 'working' && String(s.agentStateAt) > restartedAt,
      120_000,
    );
    expect(working.status).toBe('running');
    // The call landed through the nexus-mcp started before the crash, as the session's run.
    const memory = await readUntil(
      () => nexus.rpc<{ memories: { content: string; provenance: { runId: string | null } }[] }>('review.list', {}),
      (r) => r.memories.some((m) => m.content === 'learned while core was down'),
      120_000,
    );
    expect(memory.memories.find((m) => m.content === 'learned while core was down')?.provenance.runId).toBe(runBefore);
    await within(afterTool.asked, 120_000, () => Promise.resolve('the turn after the tool call'));

    afterTool.give({ text: 'Noted.' });
    const idle = await readUntil(
      () => get(created.id),
      (s) => s.agentState === 'idle',
      120_000,
    );
    expect(idle.status).toBe('running');
    expect(runOf(created.id)).toBe(runBefore);
    expect(await windowsOf()).toBe(windowBefore);
    // The same CLI went on: the turn after the tool carries the first task, the outage's task and the tool's result.
    const last = JSON.stringify(env.api.turns().at(-1)?.body.messages);
    for (const part of ['the first task', 'the task sent while core was down', 'learned while core was down'])
      expect(last).toContain(part);
  }, 900_000);
});
