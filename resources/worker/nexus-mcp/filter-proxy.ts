import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * `nexus-mcp --filter <tool,tool> -- <command> [args…]`: an external stdio MCP server behind an
 * agent's tool allow-list (seed `mcp_servers[].tools`). Newline-delimited JSON-RPC passes both ways;
 * a tools/list result keeps only the allowed tools, and a tools/call of another tool is answered
 * with an error without reaching the server. The server's stderr and exit code pass through.
 */
export function runFilterProxy(argv: string[]): void {
  const sep = argv.indexOf('--');
  const allowed = new Set((argv[1] ?? '').split(',').filter(Boolean));
  const [command, ...args] = sep >= 0 ? argv.slice(sep + 1) : [];
  if (!command) {
    process.stderr.write('nexus-mcp --filter <tools> -- <command> [args...]\n');
    process.exit(2);
  }
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const listIds = new Set<unknown>();
  const out = (msg: unknown): boolean => process.stdout.write(`${JSON.stringify(msg)}\n`);
  child.on('error', (e) => {
    process.stderr.write(`nexus-mcp: cannot start ${command}: ${e.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code) => process.exit(code ?? 1));
  createInterface({ input: process.stdin }).on('line', (line) => {
    const msg = parse(line);
    if (msg?.method === 'tools/list') listIds.add(msg.id);
    const name = (msg?.params as { name?: unknown } | undefined)?.name;
    if (msg?.method === 'tools/call' && !allowed.has(String(name))) {
      out({ jsonrpc: '2.0', id: msg.id, error: { code: -32602, message: `Tool ${String(name)} is not allowed` } });
      return;
    }
    child.stdin.write(`${line}\n`);
  });
  process.stdin.on('end', () => child.stdin.end());
  createInterface({ input: child.stdout }).on('line', (line) => {
    const msg = parse(line);
    const result = msg?.result as { tools?: { name?: unknown }[] } | undefined;
    if (msg && 'id' in msg && listIds.delete(msg.id) && Array.isArray(result?.tools)) {
      out({ ...msg, result: { ...result, tools: result.tools.filter((t) => allowed.has(String(t.name))) } });
      return;
    }
    process.stdout.write(`${line}\n`);
  });
}

function parse(line: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(line) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
