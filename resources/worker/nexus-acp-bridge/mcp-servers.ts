import { readFileSync } from 'node:fs';

/**
 * The session's MCP servers for `session/new` / `session/load`, from the `--mcp` file (ACP's `McpServer[]`, 0600 in
 * the session's state dir), read at each call. A stdio server marked `front: "http"` (its kind takes only HTTP) is
 * served by an HTTP front the bridge starts once, here, beside the agent's start (mcp-front.ts, a bundle of its own
 * loaded only when one is marked), and given as that front.
 */
export async function sessionMcpServers(file: string | undefined): Promise<() => unknown[]> {
  const read = (): unknown[] => {
    try {
      const v = file ? (JSON.parse(readFileSync(file, 'utf8')) as unknown) : [];
      return Array.isArray(v) ? v : [];
    } catch {
      return [];
    }
  };
  const marked = (e: unknown): boolean => (e as { front?: unknown } | null)?.front === 'http';
  const first = read();
  if (!first.some(marked)) return read;
  const byName = new Map<unknown, unknown>();
  try {
    const { frontStdioServers } = await import('./mcp-front');
    for (const f of (await frontStdioServers(first.filter(marked))).servers)
      byName.set((f as { name: string }).name, f);
  } catch (e) {
    // The agent would drop a stdio server anyway: the session goes on without it.
    process.stderr.write(`nexus-acp-bridge: no HTTP front for the stdio MCP servers: ${(e as Error).message}\n`);
  }
  return () =>
    read().flatMap((e) => {
      if (!marked(e)) return [e];
      const front = byName.get((e as { name?: unknown }).name);
      return front ? [front] : [];
    });
}
