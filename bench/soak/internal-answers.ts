import type { ToolCall } from './work';

/**
 * Every answer the soak got whose error code is `internal`: core saying it does not know what went wrong, which no
 * caller can act on (issue 39: a send_message after a container restart answered `internal: … Cannot find module`,
 * and nothing counted it). Any one fails the run, as a lost event does.
 */
export interface InternalAnswer {
  /** What was answered: `send_message`, an operation over HTTP, or an agent's tool. */
  where: string;
  at: number;
  message: string;
}

export interface InternalAnswers {
  count: number;
  byWhere: Record<string, number>;
  /** The first few, for the diagnosis. */
  first: InternalAnswer[];
}

/** How an agent's tool result names its code: nexus-mcp's `internal: …`, the delegated server's `[internal] …`. */
const INTERNAL_TOOL_TEXT = /^(internal:|\[internal\])/;
/** How the soak records a send_message answer that was an error (soak.ts): `error <code>: <message>`. */
const INTERNAL_MESSAGE = /^error internal: ?/;

export function internalAnswers(from: {
  /** send_message answers, as soak.ts records them. */
  messages: Iterable<{ t: number; status: string }>;
  /** Operations the soak called over HTTP (core-handle.ts keeps their `internal` answers). */
  rpc: readonly InternalAnswer[];
  /** The agents' tool calls and what their tool_result said. */
  calls: Iterable<ToolCall>;
}): InternalAnswers {
  const all: InternalAnswer[] = [...from.rpc];
  for (const m of from.messages)
    if (INTERNAL_MESSAGE.test(m.status))
      all.push({ where: 'send_message', at: m.t, message: m.status.replace(INTERNAL_MESSAGE, '') });
  for (const c of from.calls)
    if (c.isError && INTERNAL_TOOL_TEXT.test(c.text ?? ''))
      all.push({ where: `tool ${c.kind}`, at: c.answeredAt ?? c.at, message: c.text ?? '' });
  all.sort((a, b) => a.at - b.at);
  const byWhere: Record<string, number> = {};
  for (const a of all) byWhere[a.where] = (byWhere[a.where] ?? 0) + 1;
  return { count: all.length, byWhere, first: all.slice(0, 10) };
}
