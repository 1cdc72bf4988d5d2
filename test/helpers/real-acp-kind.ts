import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ModelReply } from './model-api';
import type { ModelScript, RecordedRequest } from './model-script';
import { hostileCorpus } from './hostile-corpus';
import { inspectJson } from './docker';
import { acpCrashSteps, type AcpCrashKind } from './real-acp-kind-crash';
import { startRealAgentFleet, type RealAgentFleet } from './real-agent-fleet';
import { readUntil, waitFor } from './wait';

/**
 * The product rules every ACP kind must keep, run against its real pinned CLI through a whole Nexus on the default
 * `nexus` bridge (each kind's real-<kind>.docker.test.ts calls this inside its describe): the initial message and every
 * message of the hostile corpus arrive byte-exact, each as its own prompt; a shell call waits for the operator (Allow
 * runs it; a message sent meanwhile approves nothing and is its own turn; Deny with a note reaches the model and the
 * call never runs); the structured view has the turn, the tool card and both answers; the canary key is nowhere but
 * the stand-in's headers; last, on the same Nexus and container, core `kill -9` mid-turn and a container restart
 * (real-acp-kind-crash.ts). What differs per kind is its wire: the adapter says how to read it.
 */
export interface AcpKindAdapter<R extends RecordedRequest> extends AcpCrashKind<R> {
  /** The speaker in "<speaker> needs your permission to use Bash". */
  speaker: string;
  api(fleet: RealAgentFleet): ModelScript<R>;
  /** What the model was told about the tool calls of a request (their results), as text. */
  toolResults(req: R): string;
  /** The tool names a request offers the model. */
  toolNames(req: R): string[];
  /** What the agent makes of a typed prompt (null: it never reaches the model, e.g. a command of its own). */
  asSeen?(typed: string): string | null;
  /**
   * For a kind whose CLI states its plan as ACP `plan` updates: the model's reply that makes it write this todo list
   * (its own todo tool). Measured on the pinned CLIs: Qwen Code's `todo_write` does; Gemini CLI 0.61, OpenCode and
   * Copilot CLI send none (OpenCode's todowrite is a tool card), so they leave this unset.
   */
  plan?(todos: PlanTodo[]): ModelReply;
}

export interface PlanTodo {
  id: string;
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
}

export function realAcpKindSuite<R extends RecordedRequest>(a: AcpKindAdapter<R>): void {
  let fleet: RealAgentFleet;
  const ws = `acp-${a.kind}`;
  /** Replies per marker: each session's first prompt names it, and every later request of it carries it. */
  const scripts = new Map<string, ModelReply[]>();
  /**
   * Replies per marker as a function of the request: what a turn's model request asks for, whatever else the agent
   * sends meanwhile (Qwen Code asks its model for prompt suggestions after a turn, with the conversation and tools).
   */
  const responders = new Map<string, (r: R) => ModelReply | undefined>();
  const turns = (): R[] => a.api(fleet).turns();
  const markerOf = (r: R): string | undefined =>
    [...scripts.keys(), ...responders.keys()].find((m) => a.userTexts(r).some((t) => t.includes(m)));

  beforeAll(async () => {
    fleet = await startRealAgentFleet();
    a.api(fleet).onTurn((r) => {
      const marker = markerOf(r) ?? '';
      return responders.get(marker)?.(r) ?? scripts.get(marker)?.shift() ?? { text: 'OK.' };
    });
    await fleet.createWorkspace(ws);
  }, 600_000);
  afterAll(async () => {
    await crash.tearDown();
    await fleet?.dispose();
  }, 180_000);

  it('takes the initial message and each message of the hostile corpus byte-exact, each as its own prompt', async () => {
    const [first, ...rest] = hostileCorpus;
    const s = await fleet.createSession(ws, { name: 'corpus', initialMessage: first!, agent: a.kind });
    const arrived = (typed: string, i: number) => {
      const seen = a.asSeen ? a.asSeen(typed) : typed;
      if (seen === null) return Promise.resolve();
      return waitFor(
        () => turns().find((t) => a.userTexts(t).at(-1) === seen),
        `corpus ${i} (${JSON.stringify(typed.slice(0, 40))}) as the last user text of a model request`,
        240_000,
      );
    };
    await arrived(first!, 0);
    // Sent while the agent may be busy: each waits for the turn before it (queued), then is its own prompt.
    for (const text of rest) await fleet.call('sessions.sendMessage', { session: s.id, text });
    for (const [i, text] of rest.entries()) await arrived(text, i + 1);
    const view = await fleet.call('sessions.transcript', { session: s.id, last: 2000 });
    expect(view.items.filter((i) => i.type === 'user').map((i) => (i as { text: string }).text)).toEqual(hostileCorpus);
    await fleet.call('sessions.delete', { session: s.id, deleteBranch: true });
  }, 900_000);

  it('asks before a shell call: Allow runs it, a message meanwhile approves nothing, Deny with a note reaches the model', async () => {
    const marker = `gated-${randomBytes(3).toString('hex')}`;
    const ran = `allowed-${randomBytes(4).toString('hex')}`;
    const denied = `denied-${randomBytes(4).toString('hex')}`;
    const worktree = '/workspace/.nexus-worktrees/gated';
    // Not a plain edit in the worktree (the default approval rules allow those unasked): the operator decides.
    const write = (file: string): string => `echo ok > ${file}`;
    responders.set(marker, (r) => {
      if (a.afterTool(r)) return { text: 'Done with that.' };
      const last = a.userTexts(r).at(-1);
      if (last === `${marker}: make it`) return a.shell(write(ran));
      if (last === `${marker} yes, run it`) return a.shell(write(denied));
      return { text: 'OK.' };
    });
    const s = await fleet.createSession(ws, { name: 'gated', initialMessage: `${marker}: make it`, agent: a.kind });
    const waiting = await fleet.waitForSession(s.id, 'waiting_permission', 240_000);
    expect(waiting.agentMessage).toBe(`${a.speaker} needs your permission to use Bash`);
    const sent = await fleet.tool<{ status: string }>('send_message', { session: s.id, text: `${marker} yes, run it` });
    expect(sent.status).toBe('queued');
    expect((await fleet.sh(ws, `test -e ${worktree}/${ran}`)).exitCode).not.toBe(0);
    const first = await readUntil(
      () => fleet.call('permissions.list', { sessionId: s.id }),
      (l) => l.requests.length > 0,
      60_000,
    );
    expect(JSON.stringify(first.requests[0]?.toolInput)).toContain(ran);
    await fleet.call('permissions.decide', { id: first.requests[0]!.id, behavior: 'allow' });
    await waitFor(
      async () => (await fleet.sh(ws, `test -e ${worktree}/${ran}`)).exitCode === 0 || null,
      'the allowed command',
      60_000,
    );
    await waitFor(
      () => turns().find((t) => a.userTexts(t).at(-1) === `${marker} yes, run it`),
      'the queued message as its own prompt',
      120_000,
    );
    const second = await readUntil(
      () => fleet.call('permissions.list', { sessionId: s.id }),
      (l) => l.requests.some((r) => JSON.stringify(r.toolInput).includes(denied)),
      120_000,
    );
    const req = second.requests.find((r) => JSON.stringify(r.toolInput).includes(denied))!;
    await fleet.call('permissions.decide', { id: req.id, behavior: 'deny', note: 'use the staging marker instead' });
    await waitFor(
      () => turns().find((t) => a.userTexts(t).some((x) => x.includes('use the staging marker instead'))),
      'the deny note in a model request',
      120_000,
    );
    expect((await fleet.sh(ws, `test -e ${worktree}/${denied}`)).exitCode).not.toBe(0);

    const view = await fleet.call('sessions.transcript', { session: s.id });
    expect(view.structured).toBe(true);
    expect(view.items.some((i) => i.type === 'tool')).toBe(true);
    const answers = view.items.filter((i) => i.type === 'permission').map((i) => (i as { outcome: string }).outcome);
    expect(answers).toEqual(['allowed', 'denied']);
    expect(view.items.find((i) => i.type === 'user')).toMatchObject({ text: `${marker}: make it` });
  }, 600_000);

  it('calls a platform tool through the MCP server Nexus gave in session/new; the memory waits in review', async () => {
    const marker = `tools-${randomBytes(3).toString('hex')}`;
    const lesson = `${a.kind} deploys of ${marker} need the staging flag`;
    const s = await fleet.createSession(ws, { name: 'tools', initialMessage: `${marker}: hello`, agent: a.kind });
    const first = await waitFor(
      () => turns().find((t) => a.userTexts(t).some((x) => x.includes(marker))),
      'the first turn',
      240_000,
    );
    // Each agent names an MCP server's tools its own way (`memory_propose`, `mcp__nexus__memory_propose`, …); one that
    // defers them lists them by name in its prompt and calls them through a `tool_call` bridge.
    const input = { content: lesson, scope: 'project' };
    // An agent that connects its MCP servers while its first turn runs lists their tools only in a later request, later
    // still on a loaded machine: it is asked again every 5 s for up to 2 minutes (CI at load ~24: Qwen still had none
    // after four more turns over ~45 s).
    const names = (r: R): string =>
      `${a.toolNames(r).join(' ')} ${JSON.stringify((r as unknown as { body: unknown }).body)}`;
    const until = Date.now() + 120_000;
    for (let i = 1, last = first; !names(last).includes('memory_propose') && (i === 1 || Date.now() < until); i++) {
      if (i > 1) await new Promise((r) => setTimeout(r, 5000));
      const text = `${marker}: are your tools there? (${i})`;
      await fleet.call('sessions.sendMessage', { session: s.id, text });
      last = await waitFor(() => turns().find((t) => a.userTexts(t).at(-1) === text), `turn ${i + 1}`, 120_000);
    }
    const latest =
      turns()
        .filter((t) => a.userTexts(t).some((x) => x.includes(marker)))
        .at(-1) ?? first;
    const offered = a.toolNames(latest).find((n) => n.endsWith('memory_propose'));
    const deferred = /"?([A-Za-z0-9_.-]*memory_propose)\b/.exec(names(latest))?.[1];
    const call: ModelReply | undefined = offered
      ? { toolUse: { name: offered, input } }
      : deferred && a.toolNames(latest).includes('tool_call')
        ? { toolUse: { name: 'tool_call', input: { name: deferred, arguments: input } } }
        : undefined;
    expect(call, a.toolNames(latest).join(', ')).toBeDefined();
    // A responder, not a script: a request the agent sends after the last turn (Qwen Code's prompt suggestion) must
    // not take the call.
    responders.set(marker, (r) => {
      if (a.userTexts(r).at(-1) !== `${marker}: now propose it`) return undefined;
      return a.afterTool(r) ? { text: 'Done.' } : call;
    });
    await fleet.call('sessions.sendMessage', { session: s.id, text: `${marker}: now propose it` });
    // An agent that asks before an MCP tool asks the operator like for any other call.
    const queue = await readUntil(
      async () => {
        for (const r of (await fleet.call('permissions.list', { sessionId: s.id })).requests)
          await fleet.call('permissions.decide', { id: r.id, behavior: 'allow' });
        return fleet.call('review.list', {});
      },
      (q) => q.memories.some((m) => m.content === lesson),
      240_000,
    ).catch(async (e: unknown) => {
      // What the agent made of the call: its tool cards, and what the model was told since.
      const view = await fleet.call('sessions.transcript', { session: s.id });
      const told = turns()
        .filter((t) => a.userTexts(t).some((x) => x.includes(marker)))
        .slice(-3)
        .map((t) => a.toolResults(t).slice(0, 400));
      const cards = view.items.filter((i) => i.type === 'tool' || i.type === 'permission');
      throw new Error(
        `${(e as Error).message}\ncards: ${JSON.stringify(cards).slice(0, 1500)}\ntold: ${told.join(' | ')}`,
      );
    });
    expect(queue.memories.filter((m) => m.content === lesson)).toHaveLength(1);
    await fleet.call('sessions.delete', { session: s.id, deleteBranch: true });
  }, 600_000);

  // Registered only for a kind that sends plans (no skipped test for the others: they have no plan to show).
  if (a.plan)
    it('shows the plan the agent states, each new one replacing the last, in the structured view', async () => {
      const marker = `plan-${randomBytes(3).toString('hex')}`;
      const first: PlanTodo[] = [
        { id: '1', content: `${marker} read the failing test`, status: 'in_progress' },
        { id: '2', content: `${marker} fix the parser`, status: 'pending' },
      ];
      const second: PlanTodo[] = [
        { id: '1', content: `${marker} read the failing test`, status: 'completed' },
        { id: '2', content: `${marker} fix the parser`, status: 'in_progress' },
      ];
      // Its first turn writes the list, its tool result brings the second list, the next result ends the turn.
      let written = 0;
      responders.set(marker, (r) => {
        if (!a.afterTool(r)) return written === 0 ? (written++, a.plan!(first)) : { text: 'OK.' };
        return written === 1 ? (written++, a.plan!(second)) : { text: 'Planned.' };
      });
      const s = await fleet.createSession(ws, { name: 'plan', initialMessage: `${marker}: plan it`, agent: a.kind });
      const view = await readUntil(
        async () => {
          // An agent that asks before its todo tool asks the operator like for any other call.
          for (const r of (await fleet.call('permissions.list', { sessionId: s.id })).requests)
            await fleet.call('permissions.decide', { id: r.id, behavior: 'allow' });
          return fleet.call('sessions.transcript', { session: s.id });
        },
        (t) => t.items.some((i) => i.type === 'turn_end'),
        240_000,
      );
      const plans = view.items.filter((i) => i.type === 'plan');
      const asked = turns().filter((t) => a.userTexts(t).some((x) => x.includes(marker)));
      const seen = `${JSON.stringify(view.items)}\ntools offered: ${a.toolNames(asked[0]!).join(', ')}\nresults: ${asked.map((t) => a.toolResults(t)).join(' | ')}`;
      expect(plans, seen).toHaveLength(1);
      expect((plans[0] as { entries: { content: string; status: string }[] }).entries).toEqual(
        second.map((t) => ({ content: t.content, status: t.status, priority: expect.any(String) })),
      );
      await fleet.call('sessions.delete', { session: s.id, deleteBranch: true });
    }, 600_000);

  it('keeps the canary key out of the container: the stand-in saw it only from the gateway', async () => {
    const api = a.api(fleet);
    const canary = a.canary(fleet);
    expect(api.sawCredential(canary)).toBe(true);
    const container = (await fleet.call('workspaces.get', { workspace: ws })).containerId!;
    expect(JSON.stringify(await inspectJson(container))).not.toContain(canary);
    const grep = await fleet.sh(ws, `grep -rl -- '${canary}' /run /tmp /home /workspace 2>/dev/null | wc -l`);
    expect(grep.stdout.trim()).toBe('0');
    expect(fleet.logText()).not.toContain(canary);
    expect(fleet.eventsText()).not.toContain(canary);
  }, 120_000);

  const crash = acpCrashSteps(a, { fleet: () => fleet, workspace: ws, responders, turns });
}
