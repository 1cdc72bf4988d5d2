import { type ContentBlock, type ModelReply, type ModelRequest } from '../../test/helpers/model-api';

/**
 * The scripted model's side of the soak: each session's turns answered with a loop of real work
 * (a Bash command that asks permission, allowed or denied; a platform tool through nexus-mcp; a
 * commit; a delegated call where the workspace holds a delegated credential), a few tools per turn, then a text
 * answer; the next turn starts when a message from outside arrives. Every tool call gets an id the
 * soak knows, so the tool_result the CLI sends back (or its absence) is counted.
 */
export type CallKind = 'bash-allow' | 'bash-deny' | 'commit' | 'memory' | 'board' | 'subtask' | 'delegated' | 'search';

export interface ToolCall {
  id: string;
  session: string;
  kind: CallKind;
  at: number;
  /** When its tool_result came back, and whether the CLI marked it an error. */
  answeredAt?: number;
  isError?: boolean;
  text?: string;
}

export interface DrivenSession {
  id: string;
  name: string;
  workspace: string;
  /** Its workspace holds a delegated credential: it also calls nexus-delegated. */
  delegated: boolean;
}

const NEXUS_TOOLS = ['mcp__nexus__memory_search', 'mcp__nexus__board_comment', 'mcp__nexus__task_subtask'];
const DELEGATED_TOOL = 'mcp__nexus-delegated__list_sessions';
const TOOLS_PER_TURN = 4;
/** The marker every message from outside carries; the model's requests show which arrived. */
export const MESSAGE_MARK = /soak-msg-(\d+)/g;

const blocks = (req: ModelRequest): ContentBlock[] =>
  (req.body.messages ?? []).flatMap((m) => (Array.isArray(m.content) ? m.content : []));

const resultText = (b: ContentBlock): string =>
  typeof b.content === 'string'
    ? b.content
    : Array.isArray(b.content)
      ? (b.content as ContentBlock[]).map((c) => c.text ?? '').join('\n')
      : '';

export class Work {
  readonly calls = new Map<string, ToolCall>();
  /** Message numbers a model request of the session showed (the agent's own receipt). */
  readonly received = new Map<number, { session: string; t: number }>();
  private readonly state = new Map<string, { k: number; inTurn: number; lastSearch: number }>();
  /** When each session last asked the model (its agent alive and working). */
  readonly lastTurnAt = new Map<string, number>();
  /** Model requests per session. */
  readonly turns = new Map<string, number>();
  private n = 0;
  /** Stops handing out work (the drain at the end): every turn ends with text. */
  draining = false;

  constructor(private readonly sessionOf: (req: ModelRequest) => DrivenSession | null) {}

  reply(req: ModelRequest): ModelReply {
    const s = this.sessionOf(req);
    const now = Date.now();
    for (const b of blocks(req)) {
      if (b.type !== 'tool_result' || !b.tool_use_id) continue;
      const call = this.calls.get(b.tool_use_id);
      if (call && call.answeredAt === undefined) {
        call.answeredAt = now;
        call.isError = b.is_error === true;
        call.text = resultText(b).slice(0, 300);
      }
    }
    // However the CLI wraps a message from another session, its words are in the request.
    for (const m of JSON.stringify(req.body.messages ?? []).matchAll(MESSAGE_MARK)) {
      const n = Number(m[1]);
      if (!this.received.has(n)) this.received.set(n, { session: s?.id ?? '?', t: now });
    }
    if (!s) return { text: 'OK.' };
    this.lastTurnAt.set(s.id, now);
    this.turns.set(s.id, (this.turns.get(s.id) ?? 0) + 1);
    const st = this.state.get(s.id) ?? { k: 0, inTurn: 0, lastSearch: 0 };
    this.state.set(s.id, st);
    const messages = req.body.messages ?? [];
    const last = messages[messages.length - 1];
    const afterTool = Array.isArray(last?.content) && last.content.some((b) => b.type === 'tool_result');
    if (!afterTool) st.inTurn = 0;
    if (this.draining || st.inTurn >= TOOLS_PER_TURN) return { text: `Done with this round (${s.name}).` };
    st.inTurn++;
    const offered = new Set((req.body.tools ?? []).map((t) => t.name));
    const kinds: CallKind[] = ['bash-allow', 'memory', 'commit', 'bash-deny', 'board', 'subtask'];
    if (s.delegated) kinds.push('delegated');
    let kind = kinds[st.k++ % kinds.length]!;
    const needs =
      kind === 'delegated' ? [DELEGATED_TOOL] : ['memory', 'board', 'subtask'].includes(kind) ? NEXUS_TOOLS : [];
    if (needs.some((t) => !offered.has(t))) {
      // Deferred MCP tools load through tool search; a server still connecting offers nothing yet.
      if (now - st.lastSearch < 10_000) kind = 'bash-allow';
      else {
        st.lastSearch = now;
        const names = [...NEXUS_TOOLS, ...(s.delegated ? [DELEGATED_TOOL] : [])];
        return this.call(s, 'search', 'ToolSearch', { query: `select:${names.join(',')}`, max_results: names.length });
      }
    }
    const n = ++this.n;
    switch (kind) {
      case 'bash-allow':
        return this.call(s, kind, 'Bash', { command: `touch /tmp/soak-allow-${n}`, description: `Soak step ${n}` });
      case 'bash-deny':
        return this.call(s, kind, 'Bash', { command: `touch /tmp/soak-deny-${n}`, description: `Soak step ${n}` });
      case 'commit':
        return this.call(s, kind, 'Bash', {
          command: `git -c user.email=soak@nexus.invalid -c user.name=soak commit --allow-empty -q -m "soak ${n}"`,
          description: `Soak commit ${n}`,
        });
      case 'memory':
        return this.call(s, kind, NEXUS_TOOLS[0]!, { query: `soak ${n}`, limit: 3 });
      case 'board':
        return this.call(s, kind, NEXUS_TOOLS[1]!, { body: `Soak progress ${n}` });
      case 'subtask':
        return this.call(s, kind, NEXUS_TOOLS[2]!, { title: `Soak step ${n}`, body: '' });
      default:
        return this.call(s, 'delegated', DELEGATED_TOOL, {});
    }
  }

  private call(s: DrivenSession, kind: CallKind, name: string, input: Record<string, unknown>): ModelReply {
    const id = `toolu_soak_${s.id.slice(0, 8)}_${this.calls.size}`;
    this.calls.set(id, { id, session: s.id, kind, at: Date.now() });
    return { toolUse: { name, input, id } };
  }
}

/** The operator's rule for the soak's permission asks: a command tagged soak-deny is denied, the rest allowed. */
export const decisionFor = (toolInput: unknown): 'allow' | 'deny' =>
  JSON.stringify(toolInput ?? null).includes('soak-deny') ? 'deny' : 'allow';
