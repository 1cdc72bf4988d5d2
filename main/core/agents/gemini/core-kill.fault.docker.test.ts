import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../../shared/contract/sessions';
import type { Transcript } from '../../../../shared/contract/transcript';
import { dockerExec } from '../../../../test/helpers/agent-cli';
import { tearDownCrashedCore } from '../../../../test/helpers/crashed-core-teardown';
import { geminiUserTexts } from '../../../../test/helpers/gemini-api';
import type { ModelReply } from '../../../../test/helpers/model-api';
import { readDb, runningWorkspace, startNexusProcess, type NexusProcess } from '../../../../test/helpers/nexus-process';
import { giveGeminiCredential, startRealAgentEnv, type RealAgentEnv } from '../../../../test/helpers/real-agent-env';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { readUntil, waitFor } from '../../../../test/helpers/wait';

// `kill -9` of core (`nexus serve` in its own process) with the real Gemini CLI (ACP) mid-turn: the session's bridge
// owns the agent, so the turn is not ended by the kill; core started again on the same data dir asks the bridge for
// what it missed, and the turn's end and words are in the structured view. Then a restart of the container: the
// bridge starts again and core resumes the conversation with session/load (the history is the agent's own).

const dir = tempDir('nexus-gemini-kill-');
const dataDir = join(dir.path, 'data');
const workspace = `gemini-kill-${process.pid}`;
const firstTask = 'the first gemini task before the crash';
let env: RealAgentEnv;
let nexus: NexusProcess;
let containerId = '';
let sessionId = '';

const script: (ModelReply | (() => Promise<ModelReply>))[] = [];
let give: (r: ModelReply) => void = () => undefined;
let asked: () => void = () => undefined;
const held = new Promise<ModelReply>((r) => (give = r));
const heldAsked = new Promise<void>((r) => (asked = r));

const get = (): Promise<Session> => nexus.rpc<Session>('sessions.get', { session: sessionId });
const view = (): Promise<Transcript> => nexus.rpc<Transcript>('sessions.transcript', { session: sessionId });
const texts = (t: Transcript, type: string): string[] =>
  t.items.filter((i) => i.type === type).map((i) => (i as { text: string }).text);
const link = (): { step: string; turn: number | null; bridge: string } | null =>
  readDb(
    dataDir,
    (db) =>
      (db
        .prepare('SELECT step, turn_prompt AS turn, bridge_run AS bridge FROM acp_links WHERE session_id = ?')
        .get(sessionId) as { step: string; turn: number | null; bridge: string } | undefined) ?? null,
  );

beforeAll(async () => {
  env = await startRealAgentEnv();
  env.geminiApi.onTurn(async (r) => {
    if (!geminiUserTexts(r).some((t) => t.includes('gemini task'))) return { text: 'OK.' };
    const next = script.shift() ?? { text: 'OK.' };
    return typeof next === 'function' ? next() : next;
  });
  nexus = await startNexusProcess(dataDir, env.env);
  await nexus.rpc('vault.init', {});
  await giveGeminiCredential((op, input) => nexus.rpc(op, input), env.geminiCanary);
  containerId = await runningWorkspace(nexus, workspace, env.repo.url);
}, 600_000);

afterAll(async () => {
  give({ text: 'stop' });
  await tearDownCrashedCore(nexus, dataDir, workspace);
  await env?.close();
  dir.remove();
}, 180_000);

describe('kill -9 of core with a real Gemini CLI session (ACP)', () => {
  it('the turn outlives the crash: after the restart its words and its end are in the structured view', async () => {
    script.push(() => (asked(), held));
    const created = await nexus.rpc<Session>('sessions.create', {
      workspace,
      name: 'live',
      initialMessage: firstTask,
      agent: 'gemini',
    });
    sessionId = created.id;
    await heldAsked;
    expect(link()).toMatchObject({ step: 'ready', turn: 1 });
    const agentPid = (
      await dockerExec(containerId, ['sh', '-c', 'pgrep -f "gemini.js --acp" | head -1'])
    ).stdout.trim();
    expect(agentPid).not.toBe('');

    await nexus.kill('SIGKILL');
    // The held request died with core's gateway: Gemini asks again (its retries) until the new core's gateway answers.
    script.unshift({ text: 'First task done.' });
    give({ text: 'First task done.' });
    nexus = await startNexusProcess(dataDir, env.env);
    const after = await readUntil(
      view,
      (t) =>
        texts(t, 'agent').some((x) => x.includes('First task done.')) && t.items.some((i) => i.type === 'turn_end'),
      240_000,
    );
    expect(after.items.filter((i) => i.type === 'turn_end')).toHaveLength(1);
    expect(texts(after, 'user')).toEqual([firstTask]);
    // The same agent process: the kill ended no turn and no agent.
    expect((await dockerExec(containerId, ['sh', '-c', `kill -0 ${agentPid} && echo alive`])).stdout).toContain(
      'alive',
    );
    const s = await readUntil(get, (x) => x.agentState === 'idle' || x.status !== 'running', 60_000);
    expect(s.status, s.reason ?? '').toBe('running');
    expect(link()).toMatchObject({ step: 'ready', turn: null });
  }, 600_000);

  it('after a restart of its container, core resumes the conversation with session/load', async () => {
    expect(sessionId).not.toBe('');
    // Gemini CLI finds no session saved in the same clock minute (gemini-cli #28775): the next minute first.
    const now = new Date();
    await new Promise((r) => setTimeout(r, (61 - now.getSeconds()) * 1000));
    const before = env.geminiApi.turns().length;
    const bridgeBefore = link()?.bridge;
    expect((await dockerExec(containerId, ['true'])).exitCode).toBe(0);
    execFileSync('docker', ['restart', '-t', '2', containerId]);
    // A new bridge (the container's restart took the old one), its conversation loaded.
    await waitFor(
      () => (link()?.bridge !== bridgeBefore && link()?.step === 'ready' ? true : null),
      'the conversation loaded again by a new bridge',
      240_000,
    );
    const back = await get();
    expect(back.status, back.reason ?? '').toBe('running');
    const sent = await nexus.rpc<{ status: string }>('sessions.sendMessage', {
      session: sessionId,
      text: 'the gemini task after the restart',
    });
    expect(['delivered', 'queued']).toContain(sent.status);
    const next = await waitFor(
      () =>
        env.geminiApi
          .turns()
          .slice(before)
          .find((t) => geminiUserTexts(t).at(-1) === 'the gemini task after the restart'),
      'the message after the restart',
      240_000,
    );
    // The history came back with session/load: the first task and its answer are in the request.
    expect(geminiUserTexts(next)).toContain(firstTask);
    expect(JSON.stringify(next.body.contents)).toContain('First task done.');
    const t = await view();
    expect(t.items.some((i) => i.type === 'notice' && /could not be loaded/.test((i as { text: string }).text))).toBe(
      false,
    );
  }, 600_000);
});
