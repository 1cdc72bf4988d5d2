import { spawn } from 'node:child_process';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWorker } from '../../../scripts/worker-bundles.mjs';
import { tempDir } from '../../../test/helpers/temp-dir';

// What Node reads before the agent's spawn is the bridge's share of every ACP session's start (docs/performance.md,
// "ACP sessions"): the entry bundle, with NATS and the MCP front in bundles of their own loaded after it.
describe('the bridge start', () => {
  const dir = tempDir('acp-bridge-start-');
  let bridge = '';
  beforeAll(async () => {
    bridge = ((await bundleWorker(dir.path)) as { acpBridge: string }).acpBridge;
  }, 60_000);
  afterAll(() => dir.remove());

  it('reads a small entry and leaves NATS and the MCP front to their own files', () => {
    expect(statSync(bridge).size).toBeLessThan(32 * 1024);
    for (const f of ['nexus-acp-bridge-link.cjs', 'nexus-acp-bridge-front.cjs'])
      expect(statSync(join(dir.path, f)).size).toBeGreaterThan(100 * 1024);
  });

  it('spawns the agent before it loads its link to core', async () => {
    // Without the link's file the bridge fails, but only after the agent started.
    rmSync(join(dir.path, 'nexus-acp-bridge-link.cjs'));
    const nats = join(dir.path, 'nats.json');
    writeFileSync(nats, JSON.stringify({ url: 'nats://127.0.0.1:1' }));
    const agent = [process.execPath, '-e', 'process.stderr.write("agent started\\n")'];
    const p = spawn(process.execPath, [
      bridge,
      '--nats',
      nats,
      '--workspace',
      'ws1',
      '--session',
      's1',
      '--',
      ...agent,
    ]);
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // The agent writes to the bridge's stderr (inherited): closed once both have exited.
    const code = await new Promise<number | null>((resolve) => p.on('close', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/nexus-acp-bridge: .*nexus-acp-bridge-link\.cjs/);
    expect(stderr).toContain('agent started');
  }, 30_000);

  it('with --stdio, relays ACP both ways with no core, the MCP servers put into session/new', async () => {
    // The link's file is gone (above): a bare run never loads it.
    const mcp = join(dir.path, 'acp-mcp.json');
    writeFileSync(mcp, JSON.stringify([{ name: 'nexus', type: 'http', url: 'http://127.0.0.1:9/mcp', headers: [] }]));
    const echo = [
      'require("readline").createInterface({input:process.stdin})',
      '.on("line",(l)=>console.log(JSON.stringify({echo:JSON.parse(l)})))',
      '.on("close",()=>process.exit(3))',
    ].join('');
    const p = spawn(process.execPath, [bridge, '--stdio', '1', '--mcp', mcp, '--', process.execPath, '-e', echo]);
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const closed = new Promise<number | null>((resolve) => p.on('close', resolve));
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } },
      { jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/w', mcpServers: [] } },
    ];
    p.stdin.end(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    expect(await closed).toBe(3);
    const echoed = out
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { echo: { method: string; params: Record<string, unknown> } }).echo);
    expect(echoed.map((m) => m.method)).toEqual(['initialize', 'session/new']);
    expect(echoed[0]?.params).toEqual({ protocolVersion: 1 });
    expect(echoed[1]?.params).toEqual({
      cwd: '/w',
      mcpServers: [{ name: 'nexus', type: 'http', url: 'http://127.0.0.1:9/mcp', headers: [] }],
    });
  }, 30_000);
});
