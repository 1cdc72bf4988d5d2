import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionRequest } from '../../../../shared/contract/permissions';
import type { Session } from '../../../../shared/contract/sessions';
import { dockerExec } from '../../../../test/helpers/agent-cli';
import { tearDownCrashedCore } from '../../../../test/helpers/crashed-core-teardown';
import type { ModelReply } from '../../../../test/helpers/model-api';
import { readDb, runningWorkspace, startNexusProcess, type NexusProcess } from '../../../../test/helpers/nexus-process';
import { giveAgentCredential, giveCodexCredential, startRealAgentEnv } from '../../../../test/helpers/real-agent-env';
import type { RealAgentEnv } from '../../../../test/helpers/real-agent-env';
import {
  functionOutputs,
  sessionNameOf,
  userInputTexts,
  type ResponsesRequest,
} from '../../../../test/helpers/responses-api';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { readUntil, waitFor } from '../../../../test/helpers/wait';
import { SessionsConfig } from '../../sessions/config';

// Issue 30: `kill -9` of core (`nexus serve`, the built CLI, in its own process) with the real Codex CLI
// (0.169.0) mid-turn. Core is started again on the same data dir. First the Codex that lived through the crash
// goes on in its window; then, after a second kill -9 that also took its window, core relaunches it as
// `codex resume <thread>`. Each time the next model request carries the whole earlier conversation (the same
// thread), and a shell call is still gated by the operator in Nexus: needs you, Allow, it runs, its output reaches
// the model.

const defaults = SessionsConfig.parse({});
const dir = tempDir('nexus-codex-kill-');
const dataDir = join(dir.path, 'data');
const workspace = `codex-kill-${process.pid}`;
const name = 'live';
const firstTask = 'the first codex task before the crash';
let env: RealAgentEnv;
let nexus: NexusProcess;
let containerId = '';
let sessionId = '';

/** Replies per turn, in order; a function is awaited (a reply the test hands over later). */
const script: (ModelReply | (() => Promise<ModelReply>))[] = [];
const turns = (): ResponsesRequest[] => env.codexApi.turns().filter((r) => sessionNameOf(r) === name);

function held(): { reply: () => Promise<ModelReply>; give(r: ModelReply): void; asked: Promise<void> } {
  let give: (r: ModelReply) => void = () => undefined;
  let ask: () => void = () => undefined;
  const promise = new Promise<ModelReply>((r) => (give = r));
  const asked = new Promise<void>((r) => (ask = r));
  return { reply: () => (ask(), promise), give, asked };
}
const firstReply = held();

const get = (): Promise<Session> => nexus.rpc<Session>('sessions.get', { session: sessionId });
const until = (ok: (s: Session) => boolean, ms = 180_000): Promise<Session> =>
  readUntil(get, (s) => ok(s) || s.status === 'error', ms);
const sh = async (script: string) => dockerExec(containerId, ['sh', '-c', script]);
const windows = async (): Promise<string> =>
  (await sh(`tmux list-windows -t =${defaults.tmuxSession} -F "#{window_name} #{window_id}"`)).stdout;
const threadOf = (): string | null =>
  readDb(
    dataDir,
    (db) =>
      (db.prepare('SELECT agent_thread_id AS t FROM sessions WHERE id = ?').get(sessionId) as { t: string | null }).t,
  );

/**
 * Sends `text` (queued: Codex takes it when idle), waits for the gated shell call it answers with, Allows it in
 * Nexus and returns the model request that carries the command's output.
 */
async function gatedTurn(text: string): Promise<{ asked: ResponsesRequest; after: ResponsesRequest }> {
  const out = `codex-ran-${randomBytes(4).toString('hex')}`;
  script.push({ toolUse: { name: 'exec_command', input: { cmd: `echo ${out}` } } }, { text: 'Ran it.' });
  const seen = turns().length;
  const sent = await nexus.rpc<{ status: string }>('sessions.sendMessage', { session: sessionId, text });
  expect(sent.status).toBe('queued');
  const waiting = await until((s) => s.agentState === 'waiting_permission');
  expect(waiting.agentMessage).toBe('Codex needs your permission to use Bash');
  const { requests } = await readUntil(
    () => nexus.rpc<{ requests: PermissionRequest[] }>('permissions.list', { sessionId }),
    (l) => l.requests.some((r) => JSON.stringify(r.toolInput).includes(out)),
    60_000,
  );
  const req = requests.find((r) => JSON.stringify(r.toolInput).includes(out))!;
  await nexus.rpc('permissions.decide', { id: req.id, behavior: 'allow' });
  const after = await waitFor(
    () => turns().find((t) => functionOutputs(t).some((o) => String(o.output).includes(out))),
    'the allowed command output in a model request',
    120_000,
  );
  const asked = turns()
    .slice(seen)
    .find((t) => userInputTexts(t.body.input).includes(text));
  if (!asked) throw new Error(`no model request carried ${text}`);
  await until((s) => s.agentState === 'idle', 120_000);
  return { asked, after };
}

beforeAll(async () => {
  env = await startRealAgentEnv();
  env.codexApi.onTurn(async (r) => {
    if (sessionNameOf(r) !== name) return { text: 'OK.' };
    const next = script.shift() ?? { text: 'OK.' };
    return typeof next === 'function' ? next() : next;
  });
  nexus = await startNexusProcess(dataDir, env.env);
  await nexus.rpc('vault.init', {});
  const call = (op: string, input: Record<string, unknown>) => nexus.rpc(op, input);
  await giveAgentCredential(call, env.canary);
  await giveCodexCredential(call, env.codexCanary);
  containerId = await runningWorkspace(nexus, workspace, env.repo.url);
}, 600_000);

afterAll(async () => {
  firstReply.give({ text: 'stop' });
  await tearDownCrashedCore(nexus, dataDir, workspace);
  await env?.close();
  dir.remove();
}, 180_000);

describe('kill -9 of core with a real Codex session', () => {
  it('the Codex that outlived the crash goes on in its thread, and its shell call still waits for the operator', async () => {
    script.push(firstReply.reply);
    const created = await nexus.rpc<Session>('sessions.create', {
      workspace,
      name,
      initialMessage: firstTask,
      agent: 'codex',
    });
    sessionId = created.id;
    expect(created.agent).toBe('codex');
    // Mid-turn: the stand-in holds the answer to the first task; Codex named its thread in SessionStart.
    await firstReply.asked;
    await waitFor(() => threadOf(), 'the thread id from SessionStart', 120_000);
    const thread = threadOf();
    const windowBefore = await windows();

    await nexus.kill('SIGKILL');
    // The held request died with core's gateway: Codex sends it again (with backoff) until the restarted core's
    // gateway takes it, and that one is answered. The held answer goes nowhere.
    script.unshift({ text: 'First task done.' });
    firstReply.give({ text: 'First task done.' });
    nexus = await startNexusProcess(dataDir, env.env);
    await until((s) => s.status === 'running');
    // Converge left the live Codex alone: same window, same thread.
    expect(await windows()).toBe(windowBefore);
    expect(threadOf()).toBe(thread);

    const { asked } = await gatedTurn('the task after the crash');
    expect(userInputTexts(asked.body.input)).toEqual([firstTask, 'the task after the crash']);
    expect(JSON.stringify(asked.body.input)).toContain('First task done.');
    // The TUI's thread-title request was answered with text and took no scripted reply.
    expect(env.codexApi.requests.some((r) => r.kind === 'side')).toBe(true);
    expect((await nexus.rpc<{ counts: { needs_you: number } }>('attention.get', {})).counts.needs_you).toBe(0);
  }, 900_000);

  it('after a kill -9 that took its window too, core resumes the same thread (codex resume) and the gate still asks', async () => {
    expect(sessionId).not.toBe('');
    const thread = threadOf();
    expect(thread).toBeTruthy();
    const before = turns().length;
    await nexus.kill('SIGKILL');
    expect((await sh(`tmux kill-window -t =${defaults.tmuxSession}:${name}`)).exitCode).toBe(0);
    const restartedAt = new Date().toISOString();
    nexus = await startNexusProcess(dataDir, env.env);
    const back = await until(
      (s) =>
        s.agentState === 'idle' &&
        (s.agentStateAt ?? '') > restartedAt &&
        /Codex thread resumed/.test(s.agentMessage ?? ''),
    );
    expect(back.status).toBe('running');
    expect(await windows()).toContain(`${name} `);
    const processes = await sh(`for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done`);
    expect(processes.stdout.split('\n').some((l) => /\bcodex resume\b/.test(l) && l.includes(thread!))).toBe(true);

    const { asked, after } = await gatedTurn('the task after the resume');
    // The whole earlier conversation, once: the thread went on; the first prompt was not sent again.
    expect(userInputTexts(asked.body.input)).toEqual([
      firstTask,
      'the task after the crash',
      'the task after the resume',
    ]);
    expect(JSON.stringify(after.body.input)).toContain('First task done.');
    expect(threadOf()).toBe(thread);
    expect(
      turns()
        .slice(before)
        .filter((t) => userInputTexts(t.body.input).at(-1) === firstTask),
    ).toEqual([]);
  }, 900_000);
});
