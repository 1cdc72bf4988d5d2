/**
 * nexus-acp-bridge: owns an ACP agent's stdio for one session, in the session's tmux window.
 *   node nexus-acp-bridge.cjs --nats <file> --workspace <id> --session <id> [--mcp <file>] [--initial <text>] -- <agent argv…>
 * It starts the agent in the current directory (the worktree) first, before it loads NATS or anything else it needs
 * later (core-link.ts and mcp-front.ts are bundles of their own; the agent's lines wait in the journal meanwhile),
 * and holds its stdin and stdout, so a core that restarts or is SIGKILLed never ends a turn:
 * core is the ACP client, over NATS with the workspace's hook credentials (the relay's file, read at every connect).
 * Every line the agent writes is numbered and kept (journal.ts) until core acknowledges it; a core that comes back asks for what it missed. Core's lines go to the
 * agent's stdin as they come, except that a `session/new` or `session/load` gets the session's MCP servers from the
 * `--mcp` file (0600 in its state dir: their credentials never travel over NATS). `--initial` is the session's first
 * prompt, byte-exact: every hello carries it until core has sent a prompt. The window shows the conversation as plain
 * lines (pane.ts).
 *
 * `--stdio 1` (no `--nats`, `--workspace` or `--session`) is the same start with no core: the agent's ACP lines on
 * the bridge's own stdout, a client's on its stdin (`--mcp`, when given, still fills session/new). It is the bare run
 * the ACP bench compares a session with (bench/acp.bench.ts), and a way to try a kind's argv by hand in a container.
 *
 * Subjects: it publishes on `nexus.acp.<workspaceId>` ({sessionId, bridge, lines | hello | exit}) and listens on
 * `nexus.acp-in.<workspaceId>.<sessionId>` ({send: [line…]} | {sync: afterSeq} | {ack: seq} | {hello: true} |
 * {stop: true}). When the agent exits the bridge says so, waits a little for core, and exits with its code.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { NatsConnection } from '@nats-io/transport-node';
import type { HookTargetFile } from '../nats-credential';
import { ID } from '../nexus-hook/event';
import { Journal, type JournalLine } from './journal';
import { sessionMcpServers } from './mcp-servers';
import { paneForAgent, paneForClient } from './pane';

/** A NATS message stays well under the server's 1 MB limit. */
const MAX_BATCH_BYTES = 512 * 1024;
/** One agent line larger than this is not forwarded (it is replaced by a note): NATS could not carry it. */
const MAX_LINE_BYTES = 900 * 1024;
const EXIT_LINGER_MS = 5000;

async function main(): Promise<void> {
  const { opts, argv } = parseArgs(process.argv.slice(2));
  const { nats: natsFile = '', workspace: workspaceId = '', session: sessionId = '' } = opts;
  const stdio = opts.stdio === '1';
  if (argv.length === 0 || (!stdio && (!natsFile || !workspaceId || !sessionId || !ID.test(workspaceId))))
    throw new Error('usage: see nexus-acp-bridge/main.ts');
  let initial = opts.initial ?? null;
  // The bridge run's id, drawn once crypto is loaded (after the spawn; nothing is published before).
  let run = '';
  const out = `nexus.acp.${workspaceId}`;
  const journal = new Journal();
  const startedAt = new Date().toISOString();
  let nc: NatsConnection | null = null;
  let batch: JournalLine[] = [];
  let batchBytes = 0;
  let flushing = false;

  const publish = (payload: object): void => {
    try {
      nc?.publish(out, JSON.stringify({ sessionId, bridge: run, ...payload }));
    } catch {
      // not connected: core asks for what it missed when it (or the connection) is back
    }
  };
  const flush = (): void => {
    flushing = false;
    if (batch.length) publish({ lines: batch });
    batch = [];
    batchBytes = 0;
  };
  const hello = (): void =>
    publish({
      hello: {
        pid: process.pid,
        startedAt,
        lastSeq: journal.lastSeq,
        open: journal.openSeqs(),
        dropped: journal.dropped,
        initial,
      },
    });

  const agent = spawn(argv[0] as string, argv.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
  agent.stdin.on('error', () => undefined);
  const agentLine = (raw: string): void => {
    if (stdio) return void process.stdout.write(`${raw}\n`);
    const line =
      Buffer.byteLength(raw) > MAX_LINE_BYTES
        ? JSON.stringify({ nexusBridge: 'too_large', bytes: Buffer.byteLength(raw) })
        : raw;
    const entry = journal.add(line);
    process.stdout.write(paneForAgent(line));
    if (batchBytes + line.length > MAX_BATCH_BYTES) flush();
    batch.push(entry);
    batchBytes += line.length + 16;
    if (!flushing) {
      flushing = true;
      setImmediate(flush);
    }
  };
  createInterface({ input: agent.stdout, crlfDelay: Infinity }).on('line', (l) => l.trim() && agentLine(l));
  agent.on('exit', (code, signal) => {
    if (stdio) return void process.stdout.end(() => process.exit(code ?? 1));
    agentLine(JSON.stringify({ nexusBridge: 'exit', code, signal }));
    process.stdout.write(`\nthe agent exited (${signal ?? code}).\n`);
    setTimeout(() => process.exit(code ?? 1), EXIT_LINGER_MS).unref();
  });
  agent.on('error', (e) => {
    if (stdio) {
      process.stderr.write(`nexus-acp-bridge: the agent did not start: ${e.message}\n`);
      return void process.stdout.end(() => process.exit(127));
    }
    agentLine(JSON.stringify({ nexusBridge: 'exit', code: 127, signal: null, error: e.message }));
    setTimeout(() => process.exit(127), EXIT_LINGER_MS).unref();
  });
  // The window closing (SIGHUP) or a stop ends the agent too: its stdin closes, which every ACP agent measured exits on.
  const stop = (): void => {
    agent.stdin.end();
    setTimeout(() => agent.kill('SIGKILL'), 3000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGHUP', stop);

  // Ready beside the agent's start; a stdio server its kind takes only over HTTP gets a front (mcp-servers.ts).
  const serversReady = sessionMcpServers(opts.mcp);
  if (stdio) {
    const mcpServers = await serversReady;
    const client = createInterface({ input: process.stdin, crlfDelay: Infinity });
    // Without `--mcp` a client's own servers in session/new go as it sent them.
    const fill = opts.mcp ? (l: string) => withServers(l, mcpServers) : (l: string) => l;
    client.on('line', (l) => l.trim() && agent.stdin.write(`${fill(l)}\n`));
    client.on('close', stop);
    return;
  }
  // NATS is loaded only now: the agent's start (most of a session's) runs while this one loads and connects.
  const [{ connect, hookFileAuth }, { randomBytes }] = await Promise.all([
    import('./core-link'),
    import('node:crypto'),
  ]);
  run = randomBytes(8).toString('hex');
  const read = (): HookTargetFile => JSON.parse(readFileSync(natsFile, 'utf8')) as HookTargetFile;
  const first = read();
  const conn = await connect({
    servers: first.url,
    ...hookFileAuth(read),
    name: `nexus-acp-bridge-${sessionId}`,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    ignoreAuthErrorAbort: true,
    waitOnFirstConnect: true,
    pingInterval: 5000,
    maxPingOut: 2,
  });
  nc = conn;
  const mcpServers = await serversReady;
  conn.subscribe(`nexus.acp-in.${workspaceId}.${sessionId}`, {
    callback: (err, msg) => {
      if (err) return;
      let m: { send?: unknown; sync?: unknown; ack?: unknown; hello?: unknown; stop?: unknown };
      try {
        m = JSON.parse(msg.string()) as typeof m;
      } catch {
        return;
      }
      if (Array.isArray(m.send))
        for (const sent of m.send)
          if (typeof sent === 'string' && !sent.includes('\n')) {
            const line = withServers(sent, mcpServers);
            journal.answered(line);
            if (initial !== null && line.includes('"session/prompt"')) initial = null;
            process.stdout.write(paneForClient(line));
            agent.stdin.write(`${line}\n`);
          }
      if (typeof m.ack === 'number') journal.ack(m.ack);
      if (typeof m.sync === 'number') {
        flush();
        const lines = journal.after(m.sync);
        for (let i = 0; i < lines.length; i += 200) publish({ lines: lines.slice(i, i + 200), replay: true });
      }
      if (m.hello === true) hello();
      if (m.stop === true) stop();
    },
  });
  await conn.flush();
  hello();
  void (async () => {
    for await (const s of conn.status()) if (s.type === 'reconnect') hello();
  })();
}

/** `--name value` options up to `--`, then the agent's argv. */
function parseArgs(args: string[]): { opts: Record<string, string>; argv: string[] } {
  const opts: Record<string, string> = {};
  let i = 0;
  for (; i < args.length && args[i] !== '--'; i += 2) {
    const name = args[i]?.replace(/^--/, '');
    const value = args[i + 1];
    if (name && value !== undefined) opts[name] = value;
  }
  return { opts, argv: args.slice(i + 1) };
}

/** A session/new or session/load from core gets the session's MCP servers from its file. */
function withServers(line: string, servers: () => unknown[]): string {
  if (!line.includes('"session/new"') && !line.includes('"session/load"')) return line;
  try {
    const m = JSON.parse(line) as { method?: string; params?: Record<string, unknown> };
    if ((m.method !== 'session/new' && m.method !== 'session/load') || !m.params) return line;
    return JSON.stringify({ ...m, params: { ...m.params, mcpServers: servers() } });
  } catch {
    return line;
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`nexus-acp-bridge: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(2);
});
