import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRelayServer } from '../../../../resources/worker/nexus-hook-relay/relay';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { hookCommandScript } from './hook-command';

/**
 * The shell hook (nexus-hook.sh, bash) against the relay's own HTTP side: SessionStart reaches the
 * relay and its inbox address is written before the event goes out, with no Node started; the Node
 * hook is what runs only when the relay is not there, or did not write the address.
 */
describe('the shell hook for SessionStart and StopFailure', () => {
  const dir = tempDir('nexus-hook-sh-');
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });

  /** A relay that records each published event with whether inbox.json existed at that moment. */
  async function relay(
    stateDir: string | undefined,
  ): Promise<{ port: number; heard: { event: string; inbox: boolean }[] }> {
    const heard: { event: string; inbox: boolean }[] = [];
    const server = createRelayServer({
      workspaceId: 'ws1',
      permissionWaitMs: 1000,
      stateDir,
      publish: (_subject, payload) => {
        const m = JSON.parse(payload) as { sessionId: string; event: { hook_event_name: string } };
        heard.push({
          event: m.event.hook_event_name,
          inbox: existsSync(join(dir.path, 'state', m.sessionId, 'inbox.json')),
        });
      },
      request: async () => null,
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    return { port: (server.address() as AddressInfo).port, heard };
  }

  /** A stand-in for the worker's Node: records its arguments and stdin instead of running the Node hook. */
  function fakeNode(): { path: string; calls: () => string[] } {
    const log = join(dir.path, `node-${Math.random().toString(36).slice(2)}.log`);
    const path = `${log}.sh`;
    writeFileSync(path, `#!/bin/sh\n{ echo "args: $*"; cat; echo; } >> '${log}'\n`, { mode: 0o755 });
    return { path, calls: () => (existsSync(log) ? readFileSync(log, 'utf8').split('args: ').filter(Boolean) : []) };
  }

  function run(
    port: number,
    node: string,
    event: string,
    input: Record<string, unknown>,
    env: Record<string, string> = {},
  ): Promise<{ code: number | null; stdout: string; ms: number }> {
    const script = join(dir.path, `hook-${port}.sh`);
    const paths = {
      toolsDir: join(dir.path, 'tools'),
      stateDir: join(dir.path, 'state'),
      natsFile: 'n.json',
      port,
      workspaceId: 'ws1',
    };
    writeFileSync(script, hookCommandScript(paths, node));
    const t0 = performance.now();
    const child = spawn('bash', [script, event], {
      env: { PATH: process.env.PATH ?? '', NEXUS_SESSION_ID: 'sess1', NEXUS_WORKSPACE_ID: 'ws1', ...env },
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    // A hook that exits before it reads (not a Nexus session) may close the pipe first: EPIPE, as for the CLI.
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(input));
    return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, ms: performance.now() - t0 })));
  }

  const inbox = { CLAUDE_CODE_MESSAGING_SOCKET: '/tmp/claude-x/agent.sock', CLAUDE_CODE_MESSAGING_TOKEN: 'tok-1' };

  it('hands SessionStart to the relay, which writes inbox.json (0600) before the event goes out, and starts no Node', async () => {
    const r = await relay(join(dir.path, 'state'));
    const node = fakeNode();
    const out = await run(
      r.port,
      node.path,
      'SessionStart',
      { hook_event_name: 'SessionStart', session_id: 'conv-1', source: 'startup' },
      inbox,
    );
    expect(out).toMatchObject({ code: 0, stdout: '' });
    expect(r.heard).toEqual([{ event: 'SessionStart', inbox: true }]);
    const file = join(dir.path, 'state', 'sess1', 'inbox.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      socket: '/tmp/claude-x/agent.sock',
      token: 'tok-1',
      agentSessionId: 'conv-1',
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir.path, 'state', 'sess1')).mode & 0o777).toBe(0o700);
    expect(node.calls()).toEqual([]);
  });

  it('hands StopFailure to the relay, whole (multi-byte text counted in bytes), and starts no Node', async () => {
    const r = await relay(join(dir.path, 'state'));
    const node = fakeNode();
    const message = `rate limited — ${'ü'.repeat(3000)}`;
    const out = await run(
      r.port,
      node.path,
      'StopFailure',
      { hook_event_name: 'StopFailure', message },
      {
        NEXUS_SESSION_ID: 'sess2',
      },
    );
    expect(out).toMatchObject({ code: 0, stdout: '' });
    expect(r.heard).toEqual([{ event: 'StopFailure', inbox: false }]);
    expect(node.calls()).toEqual([]);
  });

  it('gives the event to the Node hook when no relay answers', async () => {
    const r = await relay(undefined);
    const port = r.port;
    await new Promise((res) => servers.pop()?.close(res));
    const node = fakeNode();
    const input = { hook_event_name: 'SessionStart', session_id: 'conv-2' };
    expect((await run(port, node.path, 'SessionStart', input, inbox)).code).toBe(0);
    const calls = node.calls();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toContain(`${join(dir.path, 'tools')}/nexus-hook.cjs ${join(dir.path, 'state')} n.json ${port} `);
    expect(calls[0]).not.toContain('--inbox-only');
    expect(calls[0]).toContain(JSON.stringify(input));
  });

  it('gives SessionStart whole to the Node hook when the address has a byte a header cannot carry', async () => {
    const r = await relay(join(dir.path, 'state'));
    const node = fakeNode();
    const input = { hook_event_name: 'SessionStart', session_id: 'conv-4' };
    const env = { ...inbox, CLAUDE_CODE_MESSAGING_TOKEN: 'tok-é', NEXUS_SESSION_ID: 'sess4' };
    expect((await run(r.port, node.path, 'SessionStart', input, env)).code).toBe(0);
    expect(r.heard).toEqual([]);
    expect(node.calls()).toHaveLength(1);
    expect(node.calls()[0]).not.toContain('--inbox-only');
  });

  it('leaves only the inbox address to the Node hook when a relay without a state dir (an older one) took the event', async () => {
    const r = await relay(undefined);
    const node = fakeNode();
    const input = { hook_event_name: 'SessionStart', session_id: 'conv-3' };
    expect((await run(r.port, node.path, 'SessionStart', input, inbox)).code).toBe(0);
    expect(r.heard.map((h) => h.event)).toEqual(['SessionStart']);
    const calls = node.calls();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toContain('--inbox-only');
  });

  it('does nothing for a process that is not a Nexus session', async () => {
    const r = await relay(join(dir.path, 'state'));
    const node = fakeNode();
    const out = await run(
      r.port,
      node.path,
      'SessionStart',
      { hook_event_name: 'SessionStart' },
      { NEXUS_SESSION_ID: 'a b' },
    );
    expect(out.code).toBe(0);
    expect(r.heard).toEqual([]);
    expect(node.calls()).toEqual([]);
  });
});
