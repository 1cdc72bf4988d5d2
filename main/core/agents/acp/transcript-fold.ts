import type { Transcript, TranscriptItem } from '../../../../shared/contract/transcript';

/**
 * The structured view folded from what an ACP session's agent reported (`session/update` lines, kept as they came)
 * and Nexus's own notes about it (a prompt it sent, a permission asked and answered, a turn's end, a notice). Chunks
 * of a message join into one item; a tool call's updates merge into its card; each plan replaces the last.
 */
export type AcpNote =
  | { nexus: 'user'; text: string }
  | { nexus: 'notice'; text: string }
  | { nexus: 'turn_end'; stopReason: string }
  | { nexus: 'permission'; key: string; requestId: string | null; title: string; toolCall?: Update }
  | { nexus: 'permission_answer'; key: string; outcome: 'allowed' | 'denied' | 'cancelled' };

export interface FoldRow {
  id: number;
  at: string;
  data: string;
}

type Update = Record<string, unknown> & { sessionUpdate?: string };
type ToolItem = Extract<TranscriptItem, { type: 'tool' }>;

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);

/** The text of ACP content: a block `{type:"text"}`, or a tool call's content list (text, diffs, terminals). */
export function contentText(content: unknown): string {
  if (Array.isArray(content)) return content.map(contentText).filter(Boolean).join('\n');
  if (!content || typeof content !== 'object') return '';
  const c = content as Record<string, unknown>;
  if (c.type === 'text') return str(c.text);
  if (c.type === 'content') return contentText(c.content);
  if (c.type === 'diff') return `diff ${str(c.path)}`;
  if (c.type === 'resource_link') return str(c.uri);
  return '';
}

export function foldTranscript(rows: readonly FoldRow[]): Pick<Transcript, 'items' | 'agentUsage'> {
  const items: TranscriptItem[] = [];
  const tools = new Map<string, ToolItem>();
  const permissions = new Map<string, Extract<TranscriptItem, { type: 'permission' }>>();
  let usage = null as Transcript['agentUsage'];
  const append = (type: 'agent' | 'thought' | 'user', row: FoldRow, text: string): void => {
    const last = items[items.length - 1];
    if (last && last.type === type) last.text += text;
    else items.push({ type, id: `${type}-${row.id}`, text, at: row.at });
  };
  const mergeTool = (u: Update, row: FoldRow): void => {
    const id = str(u.toolCallId);
    let item = tools.get(id);
    if (!item) {
      item = {
        type: 'tool',
        id: `tool-${id || row.id}`,
        title: '',
        kind: 'other',
        status: 'pending',
        locations: [],
        input: null,
        output: '',
        at: row.at,
      };
      tools.set(id, item);
      items.push(item);
    }
    if (typeof u.title === 'string') item.title = u.title;
    if (typeof u.kind === 'string') item.kind = u.kind;
    if (u.status === 'pending' || u.status === 'in_progress' || u.status === 'completed' || u.status === 'failed')
      item.status = u.status;
    if (Array.isArray(u.locations))
      item.locations = u.locations.map((l) => str((l as { path?: unknown }).path)).filter(Boolean);
    if (u.rawInput !== undefined) item.input = u.rawInput;
    const out = contentText(u.content) || (typeof u.rawOutput === 'string' ? u.rawOutput : '');
    if (out) item.output = out.slice(-20_000);
  };
  for (const row of rows) {
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(row.data) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (typeof data.nexus === 'string') {
      const n = data as unknown as AcpNote;
      if (n.nexus === 'user') items.push({ type: 'user', id: `user-${row.id}`, text: n.text, at: row.at });
      else if (n.nexus === 'notice') items.push({ type: 'notice', id: `notice-${row.id}`, text: n.text, at: row.at });
      else if (n.nexus === 'turn_end')
        items.push({ type: 'turn_end', id: `turn-${row.id}`, stopReason: n.stopReason, at: row.at });
      else if (n.nexus === 'permission') {
        // The ask's tool call is a card of its own (some agents send no tool_call before asking).
        if (n.toolCall && typeof n.toolCall.toolCallId === 'string') mergeTool(n.toolCall, row);
        const item = {
          type: 'permission' as const,
          id: `permission-${row.id}`,
          requestId: n.requestId,
          title: n.title,
          outcome: 'pending' as const,
          at: row.at,
        };
        permissions.set(n.key, item);
        items.push(item);
      } else if (n.nexus === 'permission_answer') {
        const p = permissions.get(n.key);
        if (p) Object.assign(p, { outcome: n.outcome, requestId: null });
      }
      continue;
    }
    const params = data.params as { update?: Update } | undefined;
    if (data.method !== 'session/update' || !params?.update) continue;
    const u = params.update;
    switch (u.sessionUpdate) {
      case 'agent_message_chunk':
        append('agent', row, contentText(u.content));
        break;
      case 'agent_thought_chunk':
        append('thought', row, contentText(u.content));
        break;
      case 'user_message_chunk':
        append('user', row, contentText(u.content));
        break;
      case 'tool_call':
      case 'tool_call_update':
        mergeTool(u, row);
        break;
      case 'plan': {
        const entries = Array.isArray(u.entries) ? (u.entries as Record<string, unknown>[]) : [];
        const plan = {
          type: 'plan' as const,
          id: 'plan',
          entries: entries.map((e) => ({
            content: str(e.content),
            status: str(e.status, 'pending'),
            priority: str(e.priority, 'medium'),
          })),
          at: row.at,
        };
        const at = items.findIndex((i) => i.type === 'plan');
        if (at >= 0) items.splice(at, 1);
        items.push(plan);
        break;
      }
      case 'usage_update':
        usage = {
          inputTokens: usage?.inputTokens ?? 0,
          outputTokens: usage?.outputTokens ?? 0,
          contextUsed: typeof u.used === 'number' ? u.used : null,
        };
        break;
      default:
        break;
    }
  }
  return { items, agentUsage: usage };
}

/** The last thing the agent said (a Stop's summary). */
export function lastAgentText(rows: readonly FoldRow[]): string | null {
  const items = foldTranscript(rows).items;
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    if (it?.type === 'agent' && it.text.trim()) return it.text;
  }
  return null;
}
