import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpToolName, type ToolName } from '../../../shared/platform-tools';
import type { ModelReply, ModelRequest } from '../../../test/helpers/model-api';
import { startRealAgentFleet, type RealAgentFleet } from '../../../test/helpers/real-agent-fleet';
import { loadTools, toolReferences, toolResult } from '../../../test/helpers/tool-search';
import { readUntil, waitFor } from '../../../test/helpers/wait';

/**
 * The real pinned CLI with the resident nexus-mcp (main/core/sessions/launch/resident-mcp.ts): one
 * server per workspace container, over Streamable HTTP on 127.0.0.1, serving every Claude Code
 * session in it, each as its own run. Two sessions in one container each call a platform tool and
 * each call lands as that session's run; no session has a nexus-mcp process of its own; the server
 * SIGKILLed under them is started again by its loop and the sessions keep calling, as themselves;
 * where it cannot listen (its port taken), the container's sessions get the stdio nexus-mcp.
 */
const nexusName = (t: ToolName): string => `mcp__nexus__${mcpToolName(t)}`;
const STATE = '/tmp/nexus-sessions';
const TOOLS = '/tmp/nexus-tools';

describe('the real agent CLI through the resident nexus-mcp', () => {
  let fleet: RealAgentFleet;
  const ws = 'resident';

  beforeAll(async () => {
    fleet = await startRealAgentFleet();
    await fleet.createWorkspace(ws);
  }, 600_000);
  afterAll(async () => fleet?.dispose(), 180_000);

  /** The session's run as core wrote it for the resident server, and its MCP config's `nexus` entry. */
  const runFiles = async (workspace: string, session: string) => {
    const cat = async (file: string): Promise<string> =>
      (await fleet.sh(workspace, `cat ${STATE}/${session}/${file}`)).stdout;
    const nexus = (JSON.parse(await cat('mcp.json')) as { mcpServers: { nexus: Record<string, unknown> } }).mcpServers
      .nexus;
    const run = (await cat('mcp-run.json').then((t) => (t ? JSON.parse(t) : null))) as { runId: string } | null;
    return { nexus, runId: run?.runId ?? (nexus.env as Record<string, string> | undefined)?.NEXUS_RUN_ID };
  };
  /** The model loads memory_propose, proposes `content`, then says it is done; resolves with the tool's result text. */
  const propose = (session: string, content: string, first = true): Promise<string> => {
    const id = `toolu_prop_${randomBytes(6).toString('hex')}`;
    const then: ModelReply[] = [
      { toolUse: { name: nexusName('memory.propose'), input: { content }, id } },
      { text: 'Proposed.' },
    ];
    if (first) {
      const load = loadTools([nexusName('memory.propose')], (r) => toolReferences(r).length > 0, then);
      fleet.respond(session, load.respond);
    } else {
      let i = 0;
      fleet.respond(session, (_req: ModelRequest) => then[i++] ?? { text: 'Done.' });
    }
    return waitFor(() => toolResult(fleet.turnsOf(session), id), `the tool_result of ${content}`, 240_000).then((b) =>
      JSON.stringify(b.content),
    );
  };
  const memoryRun = async (content: string): Promise<string | null | undefined> =>
    (await fleet.call('review.list', {})).memories.find((m) => m.content === content)?.provenance.runId;

  it('two sessions in one container each call a platform tool through the one server, each as itself', async () => {
    const [a, b] = await Promise.all([
      fleet.createSession(ws, { name: 'res-a', initialMessage: 'propose a memory' }),
      fleet.createSession(ws, { name: 'res-b', initialMessage: 'propose a memory' }),
    ]);
    const [resA, resB] = await Promise.all([propose(a!.id, 'from session A'), propose(b!.id, 'from session B')]);
    expect(resA).toContain('pending');
    expect(resB).toContain('pending');
    const filesA = await runFiles(ws, a!.id);
    const filesB = await runFiles(ws, b!.id);
    expect(filesA.nexus).toMatchObject({ type: 'http', url: 'http://127.0.0.1:47632/mcp' });
    expect(filesA.runId).toBeTruthy();
    expect(filesA.runId).not.toBe(filesB.runId);
    expect(await memoryRun('from session A')).toBe(filesA.runId);
    expect(await memoryRun('from session B')).toBe(filesB.runId);
    // One nexus-mcp in the container, the resident one; no session started one of its own.
    const ps = await fleet.sh(
      ws,
      `for p in /proc/[0-9]*; do c=$(tr '\\0' ' ' < $p/cmdline 2>/dev/null)
         case $c in "/opt/nexus/node/bin/node "*nexus-mcp*) echo "$c";; esac; done`,
    );
    expect(ps.stdout.trim().split('\n')).toEqual([expect.stringContaining('--serve 47632')]);
    const stdio = await fleet.sh(ws, `grep -l NEXUS_RUN_ID /proc/[0-9]*/environ 2>/dev/null | wc -l`);
    expect(stdio.stdout.trim()).toBe('0');
    await fleet.waitForSession(a!.id, 'idle');
    await fleet.waitForSession(b!.id, 'idle');

    // The server dies under both: its loop starts it again, each CLI reconnects by itself (on its own backoff: a
    // call made before that is answered "not connected", as with any MCP server that restarts), and each
    // session's next call still lands as itself.
    const before = (await fleet.sh(ws, `cat ${TOOLS}/mcp.pid`)).stdout.trim();
    const logged = (await fleet.sh(ws, `cat ${TOOLS}/mcp.log`)).stdout.split('\n').length;
    expect((await fleet.sh(ws, `kill -9 ${before}`)).exitCode).toBe(0);
    await readUntil(
      async () => (await fleet.sh(ws, `cat ${TOOLS}/mcp.pid 2>/dev/null`)).stdout.trim(),
      (pid) => pid !== '' && pid !== before,
      30_000,
    );
    const reconnected = (log: string, session: string): boolean =>
      log
        .split('\n')
        .slice(logged - 1)
        .some((l) => l.includes(`session ${session}: took up`) || l.includes(`session ${session}: opened`));
    await readUntil(
      async () => (await fleet.sh(ws, `cat ${TOOLS}/mcp.log`)).stdout,
      (log) => reconnected(log, a!.id) && reconnected(log, b!.id),
      120_000,
    );
    const again = [propose(a!.id, 'again from A', false), propose(b!.id, 'again from B', false)];
    await fleet.call('sessions.sendMessage', { session: a!.id, text: 'propose another' });
    await fleet.call('sessions.sendMessage', { session: b!.id, text: 'propose another' });
    const [againA, againB] = await Promise.all(again);
    expect(againA).toContain('pending');
    expect(againB).toContain('pending');
    expect(await memoryRun('again from A')).toBe(filesA.runId);
    expect(await memoryRun('again from B')).toBe(filesB.runId);
  }, 900_000);

  it("where the resident server cannot listen, the container's sessions get the stdio nexus-mcp and still call", async () => {
    const other = 'fallback';
    await fleet.createWorkspace(other);
    // Something else holds the server's port before the first session installs the tools.
    const taken = await fleet.sh(
      other,
      `setsid /opt/nexus/node/bin/node -e "require('net').createServer().listen(47632, '127.0.0.1')" </dev/null >/dev/null 2>&1 &
       sleep 1; echo started`,
    );
    expect(taken.exitCode).toBe(0);
    const s = await fleet.createSession(other, { name: 'res-fallback', initialMessage: 'propose a memory' });
    const result = await propose(s.id, 'from the stdio fallback');
    expect(result).toContain('pending');
    const files = await runFiles(other, s.id);
    expect(files.nexus).toMatchObject({ command: '/opt/nexus/bin/nexus-mcp' });
    expect(files.runId).toBeTruthy();
    expect(await memoryRun('from the stdio fallback')).toBe(files.runId);
  }, 900_000);
});
