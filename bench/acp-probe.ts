import type { NatsConnection } from '@nats-io/transport-node';
import { readFileSync } from 'node:fs';
import type { Running } from '../main/serve';
import { AcpStdio } from '../test/helpers/acp-stdio';
import { dockerExec } from '../test/helpers/agent-cli';

/**
 * What the ACP bench (acp.bench.ts) reads: the bridges and agents in a workspace container, a bare agent driven by a
 * tiny ACP client with no Nexus in between, and the ACP traffic between core and the bridges on core's NATS.
 */

const TICK = 100; // USER_HZ on Linux

export interface Proc {
  pid: number;
  ppid: number;
  /** utime + stime, seconds. */
  cpu: number;
  /** On this host's performance.now() clock (containers share the host's kernel; 10 ms resolution). */
  startedAt: number;
  cmd: string;
}

const PS = `for p in /proc/[0-9]*; do
  s=$(cat $p/stat 2>/dev/null) || continue
  c=$(tr '\\0\\n|' '   ' < $p/cmdline 2>/dev/null | cut -c1-400)
  printf '%s|%s\\n' "$s" "$c"
done`;

function bootAt(): number {
  return performance.now() - Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * 1000;
}

/** Every process of the container's worker user, from /proc/<pid>/stat. */
export async function procs(containerId: string): Promise<Proc[]> {
  const r = await dockerExec(containerId, ['sh', '-c', PS]);
  const boot = bootAt();
  const out: Proc[] = [];
  for (const line of r.stdout.split('\n')) {
    const m = /^(\d+) \((.*)\) (.*)$/.exec(line);
    if (!m) continue;
    const [stat, cmd] = m[3]!.split('|');
    const f = (stat ?? '').split(' ');
    out.push({
      pid: Number(m[1]),
      ppid: Number(f[1]),
      cpu: (Number(f[11]) + Number(f[12])) / TICK,
      startedAt: boot + (Number(f[19]) / TICK) * 1000,
      cmd: cmd ?? '',
    });
  }
  return out;
}

/** One session's bridge, its agent (the bridge's child) and everything under the agent (its MCP servers among them). */
export interface SessionProcs {
  bridge: Proc;
  agent: Proc | null;
  /** The agent and its descendants but its MCP servers. */
  agentTree: Proc[];
  /** nexus-mcp processes under the agent (the session's platform tools, started by session/new). */
  mcp: Proc[];
}

export function sessionProcs(all: Proc[], sessionId: string): SessionProcs | null {
  const bridge = all.find((p) => p.cmd.includes('nexus-acp-bridge') && p.cmd.includes(` --session ${sessionId} `));
  if (!bridge) return null;
  const under = (pid: number): Proc[] => all.filter((p) => p.ppid === pid).flatMap((c) => [c, ...under(c.pid)]);
  const tree = under(bridge.pid);
  return {
    bridge,
    agent: all.find((p) => p.ppid === bridge.pid) ?? null,
    agentTree: tree.filter((p) => !p.cmd.includes('nexus-mcp')),
    mcp: tree.filter((p) => p.cmd.includes('nexus-mcp')),
  };
}

/** The ACP client's first message, as core sends it (agents/acp/acp-sessions.ts). */
export const INITIALIZE = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  clientInfo: { name: 'nexus-bench', title: 'Nexus bench', version: '1' },
};

/** A session/update that belongs to the prompt's turn (not the commands or mode the agent announces on its own). */
export const isTurnUpdate = (u: { sessionUpdate?: unknown }): boolean =>
  ['agent_message_chunk', 'agent_thought_chunk', 'tool_call', 'plan'].includes(String(u.sessionUpdate));

export interface BareRun {
  /** spawn -> first session/update, ms. */
  firstUpdateMs: number;
  firstUpdateKind: string;
  /** spawn -> the first update of the prompt's turn. */
  firstReplyMs: number;
  initializedMs: number;
  openedMs: number;
  promptSentMs: number;
}

/**
 * The agent's argv run by `docker exec` in the container with the environment a Nexus-launched agent of the same kind
 * has (`envFile`: a copy of its /proc/<pid>/environ) in `cwd`, driven by a tiny ACP client: initialize, session/new
 * (`mcpServers` as given), session/prompt; timed from the spawn. Waits for the turn's end, then closes its stdin.
 */
export async function bareRun(
  containerId: string,
  argv: readonly string[],
  opts: { envFile: string; cwd: string; text: string; mcpServers?: unknown[] },
): Promise<BareRun> {
  const pidFile = `/tmp/bench-acp-bare-${process.pid}-${++bareRuns}.pid`;
  const script = `echo $$ > "$2"; while IFS= read -r -d '' kv; do export "$kv"; done < "$1"; shift 2; exec "$@"`;
  const t0 = performance.now();
  const agent = AcpStdio.exec(containerId, ['bash', '-c', script, 'bare', opts.envFile, pidFile, ...argv], {
    cwd: opts.cwd,
  });
  const at = { first: 0, reply: 0 };
  let firstKind = '';
  const seen = (): boolean => {
    const u = agent.updates();
    if (!at.first && u.length) [at.first, firstKind] = [performance.now(), String(u[0]!.sessionUpdate)];
    if (!at.reply && u.some(isTurnUpdate)) at.reply = performance.now();
    return at.reply > 0;
  };
  try {
    void agent.until(seen, 'a turn update', 180_000).catch(() => undefined);
    await agent.request('initialize', INITIALIZE, 180_000);
    const initializedAt = performance.now();
    const s = await agent.request<{ sessionId: string }>(
      'session/new',
      { cwd: opts.cwd, mcpServers: opts.mcpServers ?? [] },
      120_000,
    );
    const openedAt = performance.now();
    const promptSentAt = performance.now();
    await agent.request(
      'session/prompt',
      { sessionId: s.sessionId, prompt: [{ type: 'text', text: opts.text }] },
      120_000,
    );
    seen();
    if (!at.first || !at.reply) throw new Error(`the bare agent's turn ended with no update: ${agent.wire.join('\n')}`);
    return {
      firstUpdateMs: at.first - t0,
      firstUpdateKind: firstKind,
      firstReplyMs: at.reply - t0,
      initializedMs: initializedAt - t0,
      openedMs: openedAt - t0,
      promptSentMs: promptSentAt - t0,
    };
  } catch (e) {
    throw new Error(`bare ${argv.join(' ')}: ${String(e)}\n${agent.wire.slice(-20).join('\n')}\n${agent.stderr}`);
  } finally {
    await agent.close();
    await killTree(containerId, pidFile);
  }
}

let bareRuns = 0;

/** Ends what a bare run left in the container (an agent whose MCP servers keep it alive after its stdin closed). */
async function killTree(containerId: string, pidFile: string): Promise<void> {
  const r = await dockerExec(containerId, ['sh', '-c', `cat ${pidFile} 2>/dev/null; rm -f ${pidFile}`]);
  const root = Number(r.stdout.trim());
  if (!root) return;
  const all = await procs(containerId);
  const under = (pid: number): number[] => all.filter((p) => p.ppid === pid).flatMap((c) => [c.pid, ...under(c.pid)]);
  const pids = [root, ...under(root)].filter((pid) => all.some((p) => p.pid === pid));
  if (pids.length) await dockerExec(containerId, ['kill', '-9', ...pids.map(String)]);
}

/**
 * Watches the ACP traffic on core's own NATS connection (read-only: a bench's look at what core and the bridges say,
 * `nexus.acp.>` in and `nexus.acp-in.>` out) and timestamps, per session, each handshake step on this clock: the
 * bridge's hello, each request core sends (by method) and each answer to core's ids (`nexus:<step>`).
 */
export class AcpWire {
  /** sessionId -> event name (hello, sent:initialize, answered:initialize, …) -> first time seen. */
  readonly at = new Map<string, Map<string, number>>();
  private readonly subs: { unsubscribe(): void }[] = [];

  constructor(running: Running) {
    const nc = (running.core.platform as unknown as { nc: NatsConnection | null }).nc;
    if (!nc) throw new Error('core has no NATS connection');
    this.subs.push(nc.subscribe('nexus.acp.>', { callback: (_e, m) => this.fromBridge(m.string()) }));
    this.subs.push(
      nc.subscribe('nexus.acp-in.>', {
        callback: (_e, m) => this.fromCore(m.subject.split('.').at(-1) ?? '', m.string()),
      }),
    );
  }

  /** Event times of one session relative to `t0`, rounded ms. */
  phases(sessionId: string, t0: number): Record<string, number> {
    return Object.fromEntries([...(this.at.get(sessionId) ?? [])].map(([k, v]) => [k, Math.round(v - t0)]));
  }

  dispose(): void {
    for (const s of this.subs) s.unsubscribe();
  }

  private mark(sessionId: string, what: string): void {
    const m = this.at.get(sessionId) ?? new Map<string, number>();
    if (!m.has(what)) m.set(what, performance.now());
    this.at.set(sessionId, m);
  }

  private fromBridge(body: string): void {
    try {
      const m = JSON.parse(body) as { sessionId: string; hello?: unknown; lines?: { line: string }[] };
      if (m.hello) this.mark(m.sessionId, 'hello');
      for (const { line } of m.lines ?? []) {
        const r = JSON.parse(line) as { id?: unknown; method?: string };
        if (typeof r.id === 'string' && r.id.startsWith('nexus:'))
          this.mark(m.sessionId, `answered:${r.id.split(':')[1]}`);
        else if (r.method === 'session/update') this.mark(m.sessionId, 'update');
      }
    } catch {
      // not a message the bench reads
    }
  }

  private fromCore(sessionId: string, body: string): void {
    try {
      const m = JSON.parse(body) as { send?: string[] };
      for (const line of m.send ?? []) {
        const r = JSON.parse(line) as { method?: string };
        if (r.method) this.mark(sessionId, `sent:${r.method.replace('session/', '')}`);
      }
    } catch {
      // not a message the bench reads
    }
  }
}
