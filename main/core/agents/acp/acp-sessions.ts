import { createHash } from 'node:crypto';
import { z } from 'zod';
import { NexusError } from '../../../../shared/errors';
import type { Transcript } from '../../../../shared/contract/transcript';
import type { Logger } from '../../log';
import type { DeliveryReport } from '../driver';
import type { AcpLinkRow, AcpStore } from './acp-store';
import { askedTool, type AcpToolCall } from './asked-tool';
import type { AcpKindDeclaration } from './declaration';
import { foldTranscript, lastAgentText, type AcpNote } from './transcript-fold';

/**
 * Core as the ACP client of every ACP session (docs/agents.md, "ACP kinds"). The session's bridge
 * (resources/worker/nexus-acp-bridge) owns the agent and forwards its lines over NATS; this class speaks the
 * protocol: `initialize`, `session/new` (or `session/load` when the session has a conversation) in the worktree,
 * the mode that makes the agent ask, then one `session/prompt` per prompt: the initial message byte-exact, then
 * each message in order, never into a running turn (they wait in `acp_prompts`). Permission asks go the one
 * permission path (rules, then the operator; nobody in time: rejected); the turn's state is raised as the hook events
 * the sessions already apply. Everything it needs across a restart is in SQLite (acp-store.ts): a core that comes back
 * asks each bridge for the lines after the last one it processed, so a turn that ended meanwhile ends here too.
 */

/** What a bridge publishes (main.ts there). */
const BridgeMessage = z.object({
  sessionId: z.string().min(1).max(100),
  bridge: z.string().regex(/^[a-f0-9]{16}$/),
  lines: z
    .array(z.object({ seq: z.number().int().positive(), line: z.string().max(1_000_000) }))
    .max(1000)
    .optional(),
  hello: z
    .object({
      lastSeq: z.number().int().min(0),
      open: z.array(z.number().int()).max(1000),
      initial: z.string().nullable().optional(),
    })
    .loose()
    .optional(),
});

/** The session as this class needs it. */
export interface AcpSessionInfo {
  id: string;
  workspaceId: string;
  kind: string;
  running: boolean;
  worktree: string;
  /** The agent's own session id (ACP `sessionId`), once it has one. */
  conversationId: string | null;
}

export interface AcpSessionsDeps {
  store: AcpStore;
  log: Logger;
  /** Publishes to one session's bridge (nexus.acp-in.<workspaceId>.<sessionId>). */
  publish(workspaceId: string, sessionId: string, payload: object): void;
  session(sessionId: string): AcpSessionInfo | null;
  /** The kind's declaration; null: not an ACP kind. */
  declaration(kind: string): AcpKindDeclaration | null;
  setConversation(sessionId: string, conversationId: string): void;
  /** Raises a hook event for the session (its state, Stop's signals), as the hook relay's would. */
  hook(workspaceId: string, sessionId: string, event: Record<string, unknown>): void;
  /** The one permission path; `respond` gets `{behavior,…}` JSON or '' (nobody decided in time). */
  ask(workspaceId: string, data: Uint8Array, respond: (d: string) => void): { id: string } | null;
  /** The session's pending asks are withdrawn (a cancelled turn). */
  withdraw(sessionId: string): void;
  /** The session's structured view changed. */
  changed(sessionId: string): void;
  /** How long the agent may take to answer `initialize`, `session/new` or `session/load` (HANDSHAKE_DEADLINE_MS). */
  handshakeDeadlineMs?: number;
}

/**
 * An agent that has not answered a handshake step by then is said to be stuck, on the session (OpenCode once left
 * `session/new` unanswered for minutes, bare as in Nexus: docs/performance.md). Generous: at a load of 40 on two cores
 * Gemini took 136 s to answer `initialize`. A late answer still goes on as usual.
 */
export const HANDSHAKE_DEADLINE_MS = 300_000;
const HANDSHAKE_METHODS: Record<string, string> = {
  initializing: 'initialize',
  opening: 'session/new',
  loading: 'session/load',
};

type Rpc = { id?: unknown; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown };

const PROTOCOL_VERSION = 1;
const encoder = new TextEncoder();

export class AcpSessions {
  /** The initial message each bridge holds until core has sent a prompt (from its hello). */
  private readonly initial = new Map<string, string>();
  /** Per session, the deadline of the handshake step core waits on. */
  private readonly deadlines = new Map<string, NodeJS.Timeout>();
  /** The steps already said to be stuck (session, bridge run, step): a reconnect's hello does not say it again. */
  private readonly saidStuck = new Set<string>();

  constructor(private readonly d: AcpSessionsDeps) {}

  /** A message from a bridge on nexus.acp.<workspaceId>. */
  receive(workspaceId: string, payload: unknown): void {
    const m = BridgeMessage.parse(payload);
    const s = this.d.session(m.sessionId);
    if (!s || s.workspaceId !== workspaceId || !this.d.declaration(s.kind)) return;
    let link = this.d.store.link(s.id);
    if (m.hello) {
      if (!link || link.bridge_run !== m.bridge) {
        // A new bridge (a launch, or a relaunch after a restart): the conversation opens again.
        link = this.d.store.resetLink(s.id, m.bridge);
        this.send(s, [rpc('nexus:initialize', 'initialize', initializeParams())]);
        this.awaitStep(s, m.bridge);
      }
      // (a core started again while the agent had not answered a step: the deadline starts over here)
      if (!this.deadlines.has(s.id)) this.awaitStep(s, m.bridge);
      if (m.hello.initial && link.prompt_seq === 0) this.initial.set(s.id, m.hello.initial);
      this.d.publish(s.workspaceId, s.id, { sync: link.cursor });
      return;
    }
    if (!link || link.bridge_run !== m.bridge || !m.lines) return;
    this.lines(s, link, m.lines);
  }

  /** After a restart: every linked session's bridge is asked to say hello (then what core missed follows). */
  wake(): void {
    for (const id of this.d.store.linkedSessions()) {
      const s = this.d.session(id);
      if (s?.running) this.d.publish(s.workspaceId, s.id, { hello: true });
    }
  }

  /** A message for the agent: sent as the next prompt (now when it is idle, else when its turn ends). */
  deliver(sessionId: string, text: string): DeliveryReport {
    const s = this.d.session(sessionId);
    if (!s) throw new NexusError('not_found', 'No such session.');
    this.d.store.queuePrompt(s.id, text);
    const link = this.d.store.link(s.id);
    const busy = !link || link.step !== 'ready' || link.turn_prompt !== null;
    if (link && !busy) this.pump(s, link);
    return busy
      ? { status: 'queued', note: 'The agent is busy: the message is its next prompt when the turn ends.' }
      : { status: 'delivered', note: 'Sent to the agent as its next prompt.' };
  }

  /** Stops the running turn (`session/cancel`); its pending permission asks are withdrawn. */
  cancel(sessionId: string): { cancelled: boolean; note: string } {
    const s = this.d.session(sessionId);
    const link = s ? this.d.store.link(s.id) : null;
    if (!s || !link || link.turn_prompt === null || !s.conversationId)
      return { cancelled: false, note: 'No turn is running.' };
    this.send(s, [
      JSON.stringify({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: s.conversationId } }),
    ]);
    this.d.withdraw(s.id);
    return { cancelled: true, note: 'The agent was asked to stop its turn.' };
  }

  transcript(sessionId: string, last = 500): Transcript {
    const s = this.d.session(sessionId);
    if (!s) throw new NexusError('not_found', 'No such session.');
    if (!this.d.declaration(s.kind)) return { sessionId, structured: false, items: [], agentUsage: null };
    const folded = foldTranscript(this.d.store.updates(s.id, 20_000));
    return { sessionId, structured: true, items: folded.items.slice(-last), agentUsage: folded.agentUsage };
  }

  private lines(s: AcpSessionInfo, link: AcpLinkRow, lines: { seq: number; line: string }[]): void {
    const updates: { seq: number; at: string; data: string }[] = [];
    let cursor = link.cursor;
    const flush = (): void => {
      this.d.store.appendUpdates(s.id, link.bridge_run, updates.splice(0), cursor);
    };
    for (const { seq, line } of lines) {
      let m: Rpc;
      try {
        m = JSON.parse(line) as Rpc;
      } catch {
        continue;
      }
      const isAsk = m.method === 'session/request_permission' && m.id !== undefined;
      // A line core already processed comes again only as a replay; an open ask is asked again (same askId).
      if (seq <= cursor && !isAsk) continue;
      if (seq > cursor) cursor = seq;
      const at = new Date().toISOString();
      if (m.method === 'session/update') {
        updates.push({ seq, at, data: line });
        continue;
      }
      flush();
      this.control(s, m);
      link = this.d.store.link(s.id) ?? link;
    }
    flush();
    this.d.publish(s.workspaceId, s.id, { ack: cursor });
    this.d.changed(s.id);
  }

  /** Everything that is not an update: responses to core, the agent's requests, the bridge's own notes. */
  private control(s: AcpSessionInfo, m: Rpc): void {
    const note = (n: AcpNote): void => this.d.store.note(s.id, n);
    const bridgeNote = (m as { nexusBridge?: string }).nexusBridge;
    if (bridgeNote === 'exit') {
      this.d.store.updateLink(s.id, { step: 'ended', turn_prompt: null });
      const code = (m as { code?: unknown }).code;
      note({ nexus: 'notice', text: `The agent exited (${String(code ?? 'signal')}).` });
      this.d.hook(s.workspaceId, s.id, { hook_event_name: 'SessionEnd', reason: `the agent exited (${String(code)})` });
      return;
    }
    if (bridgeNote === 'too_large')
      return note({ nexus: 'notice', text: 'An update too large to carry was left out.' });
    if (m.method && m.id !== undefined) return this.agentRequest(s, m);
    if (m.method || typeof m.id !== 'string' || !m.id.startsWith('nexus:')) return;
    const decl = this.d.declaration(s.kind) as AcpKindDeclaration;
    const failed = m.error ? errorText(m.error) : null;
    const result = (m.result ?? {}) as Record<string, unknown>;
    const [, step, n] = m.id.split(':');
    if (step === 'initialize' || step === 'new' || step === 'load') this.answeredStep(s.id);
    switch (step) {
      case 'initialize':
        if (failed) return this.fail(s, `The agent refused to start: ${failed}`);
        return this.open(s);
      case 'new': {
        if (failed || typeof result.sessionId !== 'string')
          return this.fail(s, `The agent opened no session: ${failed ?? 'no session id'}`);
        this.d.setConversation(s.id, result.sessionId);
        s.conversationId = result.sessionId;
        return this.afterOpen(s, decl);
      }
      case 'load':
        if (failed) {
          note({ nexus: 'notice', text: `Its history could not be loaded (${failed}); a new conversation starts.` });
          s.conversationId = null;
          return this.open(s);
        }
        return this.afterOpen(s, decl);
      case 'mode':
        if (failed) note({ nexus: 'notice', text: `The agent's asking mode could not be set: ${failed}` });
        return this.ready(s);
      case 'prompt': {
        const link = this.d.store.link(s.id);
        if (!link || link.turn_prompt !== Number(n)) return;
        const stopReason = failed ? 'error' : typeof result.stopReason === 'string' ? result.stopReason : 'end_turn';
        this.d.store.updateLink(s.id, { turn_prompt: null });
        note({ nexus: 'turn_end', stopReason });
        if (failed) {
          note({ nexus: 'notice', text: `The turn failed: ${failed}` });
          this.d.hook(s.workspaceId, s.id, { hook_event_name: 'StopFailure', message: `The turn failed: ${failed}` });
        } else
          this.d.hook(s.workspaceId, s.id, {
            hook_event_name: 'Stop',
            last_assistant_message: lastAgentText(this.d.store.updates(s.id, 2000)) ?? '',
          });
        return this.pump(s, this.d.store.link(s.id) as AcpLinkRow);
      }
      default:
        return;
    }
  }

  /** The agent asks core: a permission goes the one permission path; anything else is not offered (error). */
  private agentRequest(s: AcpSessionInfo, m: Rpc): void {
    if (m.method !== 'session/request_permission') {
      this.send(s, [
        JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } }),
      ]);
      return;
    }
    const params = m.params ?? {};
    const call = (params.toolCall ?? {}) as AcpToolCall;
    const options = Array.isArray(params.options) ? (params.options as { optionId?: string; kind?: string }[]) : [];
    const key = createHash('sha256')
      .update(`${this.d.store.link(s.id)?.bridge_run ?? ''} ${JSON.stringify(m.id)}`)
      .digest('hex')
      .slice(0, 32);
    const { toolName, toolInput } = askedTool(call);
    const title = typeof call.title === 'string' && call.title ? call.title : toolName;
    const answer = (outcome: 'allowed' | 'denied' | 'cancelled', optionKinds: string[], noteText?: string): void => {
      const option = optionKinds.map((k) => options.find((o) => o.kind === k)).find(Boolean);
      const result = option?.optionId
        ? { outcome: { outcome: 'selected', optionId: option.optionId } }
        : { outcome: { outcome: 'cancelled' } };
      this.send(s, [JSON.stringify({ jsonrpc: '2.0', id: m.id, result })]);
      this.d.store.note(s.id, { nexus: 'permission_answer', key, outcome });
      if (noteText) this.d.store.queuePrompt(s.id, noteText);
      this.d.hook(s.workspaceId, s.id, { hook_event_name: 'PreToolUse', tool_name: toolName });
      this.d.changed(s.id);
    };
    const data = encoder.encode(
      JSON.stringify({
        sessionId: s.id,
        workspaceId: s.workspaceId,
        at: new Date().toISOString(),
        toolName,
        toolInput,
        askId: key,
      }),
    );
    let first = true;
    const pending = this.d.ask(s.workspaceId, data, (reply) => {
      first = false;
      if (!reply) return answer('denied', ['reject_once', 'reject_always'], undefined);
      const decided = JSON.parse(reply) as { behavior?: string; message?: string };
      if (decided.behavior === 'allow') return answer('allowed', ['allow_once', 'allow_always']);
      const why = decided.message ? `The operator denied "${title}" in Nexus: ${decided.message}` : undefined;
      return answer('denied', ['reject_once', 'reject_always'], why);
    });
    if (!pending || !first) return;
    this.d.store.note(s.id, {
      nexus: 'permission',
      key,
      requestId: pending.id,
      title,
      toolCall: call as Record<string, unknown>,
    });
    this.d.hook(s.workspaceId, s.id, { hook_event_name: 'PermissionRequest', tool_name: toolName });
  }

  private open(s: AcpSessionInfo): void {
    const params = { cwd: s.worktree, mcpServers: [] };
    if (s.conversationId) {
      this.d.store.updateLink(s.id, { step: 'loading' });
      this.send(s, [rpc('nexus:load', 'session/load', { ...params, sessionId: s.conversationId })]);
    } else {
      this.d.store.updateLink(s.id, { step: 'opening' });
      this.send(s, [rpc('nexus:new', 'session/new', params)]);
    }
    const run = this.d.store.link(s.id)?.bridge_run;
    if (run) this.awaitStep(s, run);
  }

  /**
   * Arms the deadline of the handshake step just sent to bridge run `run`: if the link is still at that step with
   * that run when it passes, the session says the agent is stuck (a StopFailure with the words; nothing is killed).
   */
  private awaitStep(s: AcpSessionInfo, run: string): void {
    this.answeredStep(s.id);
    const step = this.d.store.link(s.id)?.step;
    const method = step ? HANDSHAKE_METHODS[step] : undefined;
    const said = `${s.id} ${run} ${step}`;
    if (!method || this.saidStuck.has(said)) return;
    const ms = this.d.handshakeDeadlineMs ?? HANDSHAKE_DEADLINE_MS;
    const timer = setTimeout(() => {
      this.deadlines.delete(s.id);
      try {
        const link = this.d.store.link(s.id);
        if (!link || link.bridge_run !== run || link.step !== step) return;
        this.saidStuck.add(said);
        const speaker = this.d.declaration(s.kind)?.speaker ?? 'The agent';
        this.fail(
          s,
          `${speaker} has not answered ${method} in ${Math.round(ms / 1000)} s: it looks stuck. ` +
            'Stop and start the session to launch it again; an answer that still comes goes on as usual.',
        );
        this.d.changed(s.id);
      } catch (e) {
        // A core closing meanwhile (its store gone): nothing to say.
        this.d.log.debug('acp handshake deadline after close', { error: e });
      }
    }, ms);
    timer.unref();
    this.deadlines.set(s.id, timer);
  }

  private answeredStep(sessionId: string): void {
    clearTimeout(this.deadlines.get(sessionId));
    this.deadlines.delete(sessionId);
  }

  private afterOpen(s: AcpSessionInfo, decl: AcpKindDeclaration): void {
    if (!decl.askMode) return this.ready(s);
    this.d.store.updateLink(s.id, { step: 'setting_mode' });
    this.send(s, [rpc('nexus:mode', 'session/set_mode', { sessionId: s.conversationId, modeId: decl.askMode })]);
  }

  private ready(s: AcpSessionInfo): void {
    this.d.store.updateLink(s.id, { step: 'ready' });
    this.d.hook(s.workspaceId, s.id, { hook_event_name: 'SessionStart', source: 'acp' });
    this.pump(s, this.d.store.link(s.id) as AcpLinkRow);
  }

  /** The next prompt, when the agent is ready and no turn runs: the initial message first, then the queue. */
  private pump(s: AcpSessionInfo, link: AcpLinkRow): void {
    if (link.step !== 'ready' || link.turn_prompt !== null || !s.conversationId) return;
    let text = link.prompt_seq === 0 ? (this.initial.get(s.id) ?? null) : null;
    if (text !== null) this.initial.delete(s.id);
    else {
      const queued = this.d.store.nextPrompt(s.id);
      if (!queued) return;
      this.d.store.takePrompt(queued.id);
      text = queued.text;
    }
    const n = link.prompt_seq + 1;
    this.d.store.updateLink(s.id, { prompt_seq: n, turn_prompt: n });
    this.d.store.note(s.id, { nexus: 'user', text });
    this.send(s, [
      rpc(`nexus:prompt:${n}`, 'session/prompt', { sessionId: s.conversationId, prompt: [{ type: 'text', text }] }),
    ]);
    this.d.hook(s.workspaceId, s.id, { hook_event_name: 'UserPromptSubmit' });
  }

  private fail(s: AcpSessionInfo, text: string): void {
    this.d.store.note(s.id, { nexus: 'notice', text });
    this.d.hook(s.workspaceId, s.id, { hook_event_name: 'StopFailure', message: text.slice(0, 2000) });
  }

  private send(s: AcpSessionInfo, lines: string[]): void {
    this.d.publish(s.workspaceId, s.id, { send: lines });
  }
}

const rpc = (id: string, method: string, params: object): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

const initializeParams = (): object => ({
  protocolVersion: PROTOCOL_VERSION,
  // The agents use their own file and shell tools (each call asked through request_permission).
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  clientInfo: { name: 'nexus', title: 'Nexus', version: '1' },
});

function errorText(error: unknown): string {
  const e = error as { message?: unknown; code?: unknown };
  return `${typeof e.message === 'string' ? e.message.slice(0, 500) : 'error'}${typeof e.code === 'number' ? ` (${e.code})` : ''}`;
}
