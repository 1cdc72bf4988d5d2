import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openStore } from '../../store/open';
import type { Db } from '../../store/open';
import { createLogger } from '../../log';
import { Redactor } from '../../redact';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { AcpSessions, type AcpSessionInfo } from './acp-sessions';
import { AcpStore } from './acp-store';
import type { AcpKindDeclaration } from './declaration';

/**
 * Core as the ACP client, against a scripted bridge: the handshake, the initial message as the first prompt
 * byte-exact, messages held for the running turn, permission asks through the one permission path (allow, deny with a
 * note, nobody deciding), and a core that restarts mid-turn picking the turn up from the bridge's journal.
 */
const BRIDGE = 'a1b2c3d4e5f60718';
const decl = { kind: 'acp-test', askMode: 'default' } as unknown as AcpKindDeclaration;

interface Rig {
  acp: AcpSessions;
  /** Lines core wrote to the agent, parsed. */
  sent: { id?: string | number; method?: string; params?: Record<string, unknown>; result?: unknown }[];
  syncs: number[];
  hooks: string[];
  asks: { data: Record<string, unknown>; respond: (d: string) => void }[];
  withdrawn: string[];
}

describe('AcpSessions (core as the ACP client)', () => {
  let dir: ReturnType<typeof tempDir>;
  let db: Db;
  let store: AcpStore;
  let session: AcpSessionInfo;
  let seq = 0;

  beforeEach(() => {
    dir = tempDir('nexus-acp-');
    db = openStore(join(dir.path, 'core.db'));
    db.pragma('foreign_keys = OFF');
    store = new AcpStore(db);
    session = {
      id: 's1',
      workspaceId: 'w1',
      kind: 'acp-test',
      running: true,
      worktree: '/wt/s1',
      conversationId: null,
    };
    seq = 0;
  });
  afterEach(() => {
    db.close();
    dir.remove();
  });

  const rig = (handshakeDeadlineMs?: number): Rig => {
    const r: Rig = { sent: [], syncs: [], hooks: [], asks: [], withdrawn: [] } as unknown as Rig;
    r.acp = new AcpSessions({
      ...(handshakeDeadlineMs ? { handshakeDeadlineMs } : {}),
      store,
      log: createLogger({ stderr: false, redactor: new Redactor() }),
      publish: (_ws, _s, payload) => {
        const p = payload as { send?: string[]; sync?: number };
        for (const l of p.send ?? []) r.sent.push(JSON.parse(l) as Rig['sent'][number]);
        if (p.sync !== undefined) r.syncs.push(p.sync);
      },
      session: (id) => (id === session.id ? { ...session } : null),
      declaration: (kind) => (kind === 'acp-test' ? decl : null),
      setConversation: (_id, c) => void (session.conversationId = c),
      hook: (_ws, _s, e) => void r.hooks.push(String(e.hook_event_name)),
      ask: (_ws, data, respond) => {
        r.asks.push({ data: JSON.parse(new TextDecoder().decode(data)) as Record<string, unknown>, respond });
        return { id: `req-${r.asks.length}` };
      },
      withdraw: (id) => void r.withdrawn.push(id),
      changed: () => undefined,
    });
    return r;
  };
  const lines = (r: Rig, ...msgs: object[]): void =>
    r.acp.receive('w1', {
      sessionId: 's1',
      bridge: BRIDGE,
      lines: msgs.map((m) => ({ seq: ++seq, line: JSON.stringify(m) })),
    });
  const respond = (r: Rig, id: string, result: object): void => lines(r, { jsonrpc: '2.0', id, result });
  const last = (r: Rig) => r.sent[r.sent.length - 1]!;
  const chunk = (text: string) => ({
    jsonrpc: '2.0',
    method: 'session/update',
    params: { sessionId: 'c1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } },
  });
  const permissionAsk = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'session/request_permission',
    params: {
      sessionId: 'c1',
      toolCall: { toolCallId: 't1', title: 'touch /tmp/x', kind: 'execute', rawInput: { command: 'touch /tmp/x' } },
      options: [
        { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
        { optionId: 'no', name: 'Reject', kind: 'reject_once' },
      ],
    },
  });

  /** A session opened to its first prompt (`initial`, the bridge's --initial). */
  const opened = (initial: string): Rig => {
    const r = rig();
    r.acp.receive('w1', { sessionId: 's1', bridge: BRIDGE, hello: { lastSeq: 0, open: [], initial } });
    expect(last(r).method).toBe('initialize');
    respond(r, 'nexus:initialize', { protocolVersion: 1 });
    expect(last(r)).toMatchObject({ method: 'session/new', params: { cwd: '/wt/s1', mcpServers: [] } });
    respond(r, 'nexus:new', { sessionId: 'c1' });
    expect(last(r)).toMatchObject({ method: 'session/set_mode', params: { sessionId: 'c1', modeId: 'default' } });
    respond(r, 'nexus:mode', {});
    return r;
  };

  it('opens the conversation and sends the initial message as the first prompt, byte-exact', () => {
    const typed = '  $(id) `x`\r\n-- "q" \'s\' ünï 🚀  ';
    const r = opened(typed);
    expect(session.conversationId).toBe('c1');
    expect(last(r)).toMatchObject({
      method: 'session/prompt',
      params: { sessionId: 'c1', prompt: [{ type: 'text', text: typed }] },
    });
    expect(r.hooks).toEqual(['SessionStart', 'UserPromptSubmit']);
  });

  it('says the agent is stuck when a handshake step is unanswered past its deadline; a late answer goes on', () => {
    vi.useFakeTimers();
    try {
      const r = rig(1000);
      const notices = () =>
        r.acp
          .transcript('s1')
          .items.filter((i) => i.type === 'notice')
          .map((i) => (i as { text: string }).text);
      r.acp.receive('w1', { sessionId: 's1', bridge: BRIDGE, hello: { lastSeq: 0, open: [], initial: 'go' } });
      // initialize answered in time: its deadline is gone, session/new's starts now.
      vi.advanceTimersByTime(900);
      respond(r, 'nexus:initialize', { protocolVersion: 1 });
      expect(last(r).method).toBe('session/new');
      vi.advanceTimersByTime(900);
      expect(r.hooks).toEqual([]);
      // session/new unanswered past its deadline.
      vi.advanceTimersByTime(200);
      expect(r.hooks).toEqual(['StopFailure']);
      // A reconnect's hello (the same bridge run) does not say it again.
      r.acp.receive('w1', { sessionId: 's1', bridge: BRIDGE, hello: { lastSeq: 1, open: [], initial: 'go' } });
      vi.advanceTimersByTime(5000);
      expect(r.hooks).toEqual(['StopFailure']);
      expect(notices()).toEqual([
        'The agent has not answered session/new in 1 s: it looks stuck. Stop and start the session to launch it ' +
          'again; an answer that still comes goes on as usual.',
      ]);
      // A late answer goes on as usual, and nothing after the handshake has a deadline.
      respond(r, 'nexus:new', { sessionId: 'c1' });
      respond(r, 'nexus:mode', {});
      expect(last(r)).toMatchObject({ method: 'session/prompt', params: { prompt: [{ text: 'go' }] } });
      vi.advanceTimersByTime(10_000);
      expect(r.hooks).toEqual(['StopFailure', 'SessionStart', 'UserPromptSubmit']);
      expect(notices()).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('holds a message for the running turn and sends it as the next prompt; the turn end is a Stop', () => {
    const r = opened('first');
    expect(r.acp.deliver('s1', 'second').status).toBe('queued');
    expect(r.sent.filter((m) => m.method === 'session/prompt')).toHaveLength(1);
    lines(r, chunk('Hel'), chunk('lo.'));
    respond(r, 'nexus:prompt:1', { stopReason: 'end_turn' });
    expect(r.hooks).toContain('Stop');
    expect(last(r)).toMatchObject({ method: 'session/prompt', params: { prompt: [{ text: 'second' }] } });
    const view = r.acp.transcript('s1');
    expect(view.items.map((i) => i.type)).toEqual(['user', 'agent', 'turn_end', 'user']);
    expect(view.items[1]).toMatchObject({ type: 'agent', text: 'Hello.' });
  });

  it('asks through the one permission path: allow selects allow_once; a deny note is the next prompt', () => {
    const r = opened('go');
    lines(r, permissionAsk(7));
    expect(r.asks[0]!.data).toMatchObject({
      sessionId: 's1',
      toolName: 'Bash',
      toolInput: { command: 'touch /tmp/x' },
    });
    expect(r.hooks.at(-1)).toBe('PermissionRequest');
    // The ask's tool call is a card in the view while it waits (Gemini CLI sends no tool_call before asking).
    expect(r.acp.transcript('s1').items.find((i) => i.type === 'tool')).toMatchObject({
      title: 'touch /tmp/x',
      kind: 'execute',
    });
    r.asks[0]!.respond(JSON.stringify({ behavior: 'allow' }));
    expect(last(r)).toMatchObject({ id: 7, result: { outcome: { outcome: 'selected', optionId: 'yes' } } });
    lines(r, permissionAsk(8));
    r.asks[1]!.respond(JSON.stringify({ behavior: 'deny', message: 'not there' }));
    expect(last(r)).toMatchObject({ id: 8, result: { outcome: { outcome: 'selected', optionId: 'no' } } });
    respond(r, 'nexus:prompt:1', { stopReason: 'end_turn' });
    expect(last(r)).toMatchObject({ method: 'session/prompt' });
    expect(JSON.stringify(last(r).params)).toContain('not there');
    const outcomes = r.acp.transcript('s1').items.filter((i) => i.type === 'permission');
    expect(outcomes.map((i) => (i as { outcome: string }).outcome)).toEqual(['allowed', 'denied']);
  });

  it('rejects when nobody decides in time (fails closed)', () => {
    const r = opened('go');
    lines(r, permissionAsk(9));
    r.asks[0]!.respond('');
    expect(last(r)).toMatchObject({ id: 9, result: { outcome: { outcome: 'selected', optionId: 'no' } } });
  });

  it('a core that restarts mid-turn asks the bridge for what it missed and ends the turn from the replay', () => {
    const before = opened('long task');
    lines(before, chunk('working…'));
    const processed = seq;
    // The turn goes on while core is away: more updates, an ask, the turn's end.
    const missed = [
      chunk(' done.'),
      permissionAsk(11),
      { jsonrpc: '2.0', id: 'nexus:prompt:1', result: { stopReason: 'end_turn' } },
    ];
    const after = rig();
    after.acp.receive('w1', {
      sessionId: 's1',
      bridge: BRIDGE,
      hello: { lastSeq: processed + 3, open: [], initial: null },
    });
    expect(after.sent).toEqual([]);
    expect(after.syncs).toEqual([processed]);
    // The bridge replays a line core had processed (skipped) and the ones it missed.
    after.acp.receive('w1', {
      sessionId: 's1',
      bridge: BRIDGE,
      lines: [
        { seq: processed, line: JSON.stringify(chunk('working…')) },
        ...missed.map((m, i) => ({ seq: processed + 1 + i, line: JSON.stringify(m) })),
      ],
    });
    expect(after.asks).toHaveLength(1);
    expect(after.hooks).toContain('Stop');
    const agent = after.acp.transcript('s1').items.filter((i) => i.type === 'agent');
    expect(agent.map((i) => (i as { text: string }).text)).toEqual(['working… done.']);
  });

  it('a new bridge run (the container restarted) loads the conversation with session/load', () => {
    const first = opened('x');
    respond(first, 'nexus:prompt:1', { stopReason: 'end_turn' });
    const r = rig();
    r.acp.receive('w1', {
      sessionId: 's1',
      bridge: 'ffffffffffffffff',
      hello: { lastSeq: 0, open: [], initial: null },
    });
    expect(last(r).method).toBe('initialize');
    r.acp.receive('w1', {
      sessionId: 's1',
      bridge: 'ffffffffffffffff',
      lines: [{ seq: 1, line: JSON.stringify({ jsonrpc: '2.0', id: 'nexus:initialize', result: {} }) }],
    });
    expect(last(r)).toMatchObject({ method: 'session/load', params: { sessionId: 'c1', cwd: '/wt/s1' } });
  });

  it('ignores a bridge of another workspace and cancels only a running turn', () => {
    const r = opened('x');
    const before = r.sent.length;
    r.acp.receive('w2', { sessionId: 's1', bridge: BRIDGE, lines: [{ seq: 99, line: JSON.stringify(chunk('no')) }] });
    expect(r.sent.length).toBe(before);
    expect(r.acp.cancel('s1')).toMatchObject({ cancelled: true });
    expect(last(r)).toMatchObject({ method: 'session/cancel', params: { sessionId: 'c1' } });
    expect(r.withdrawn).toEqual(['s1']);
    respond(r, 'nexus:prompt:1', { stopReason: 'cancelled' });
    expect(r.acp.cancel('s1')).toMatchObject({ cancelled: false });
  });
});
