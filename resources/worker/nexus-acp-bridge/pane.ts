/**
 * The session's window shows the conversation as plain lines (the structured view is in the app): what Nexus
 * prompted, what the agent says, each tool call and each permission ask. Nothing here decides anything.
 */
type Msg = { method?: string; params?: Record<string, unknown> };

const text = (content: unknown): string =>
  content && typeof content === 'object' && typeof (content as { text?: unknown }).text === 'string'
    ? (content as { text: string }).text
    : '';

/** What to print for one line core sent the agent. */
export function paneForClient(line: string): string {
  const m = parseMsg(line);
  if (m?.method !== 'session/prompt') return '';
  const prompt = (m.params?.prompt as unknown[] | undefined) ?? [];
  return `\n\x1b[1m› ${prompt.map(text).join('')}\x1b[0m\n`;
}

/** What to print for one line of the agent. */
export function paneForAgent(line: string): string {
  const m = parseMsg(line);
  if (!m?.method) return '';
  if (m.method === 'session/request_permission') {
    const title = (m.params?.toolCall as { title?: unknown } | undefined)?.title;
    return `\n\x1b[33m? permission asked: ${typeof title === 'string' ? title : 'a tool call'} (answer in Nexus)\x1b[0m\n`;
  }
  if (m.method !== 'session/update') return '';
  const u = (m.params?.update ?? {}) as Record<string, unknown>;
  switch (u.sessionUpdate) {
    case 'agent_message_chunk':
      return text(u.content);
    case 'tool_call':
      return `\n\x1b[36m▶ ${typeof u.title === 'string' ? u.title : 'tool'}\x1b[0m\n`;
    case 'tool_call_update':
      return u.status === 'failed'
        ? `\x1b[31m✗ failed\x1b[0m\n`
        : u.status === 'completed'
          ? `\x1b[32m✓ done\x1b[0m\n`
          : '';
    default:
      return '';
  }
}

function parseMsg(line: string): Msg | null {
  try {
    const v = JSON.parse(line) as unknown;
    return v && typeof v === 'object' ? (v as Msg) : null;
  } catch {
    return null;
  }
}
