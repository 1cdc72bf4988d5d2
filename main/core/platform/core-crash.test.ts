import { userAuth } from './nats/auth';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { connect } from '@nats-io/transport-node';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolReply } from '../../../shared/platform-tools';
import { openCore, repoRoot } from '../../../test/helpers/core';
import { tempDir } from '../../../test/helpers/temp-dir';
import { okResult } from '../../../test/helpers/platform-fixture';
import type { HookCredentials, RunCredentials } from './platform-service';

/** Live nats-server processes started with this config file. */
function serversFor(configFile: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const zombie = / Z /.test(readFileSync(`/proc/${entry}/stat`, 'utf8'));
      if (!zombie && argv.includes(configFile)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

const dirs: { remove(): void }[] = [];
afterEach(() => dirs.splice(0).forEach((d) => d.remove()));

describe('a SIGKILLed core loses nothing', () => {
  it('the restarted core replaces the orphaned nats-server on the same port; hooks and run calls land', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const configFile = join(dir.path, 'nats', 'nats.conf');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/children/core-until-killed.ts', dir.path, 'ws-crash'],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`child exited early (${code})`)));
    });
    const before = JSON.parse(line) as { run: RunCredentials; hook: HookCredentials; serverPid: number };
    // nexus-mcp's connection in a running session: it outlives core and reconnects.
    const mcp = await connect({
      servers: before.run.natsUrl,
      ...userAuth(before.run.password ?? ''),
      inboxPrefix: before.run.inboxPrefix,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 100,
    });
    const reconnected = (async () => {
      for await (const s of mcp.status()) if (s.type === 'reconnect') return;
    })();
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    // The fault: the killed core's nats-server is still running.
    expect(serversFor(configFile)).toEqual([before.serverPid]);

    const core = await openCore(dir.path);
    try {
      expect(core.platform.url).toBe(before.run.natsUrl);
      expect(serversFor(configFile)).toEqual([core.platform.serverPid]);
      expect(core.platform.serverPid).not.toBe(before.serverPid);

      // The session's hook forwarder publishes with the credentials it was given before the crash.
      const landed = new Promise<unknown>((r) => core.platform.onHookEvent((e) => r(e)));
      const hook = await connect({
        servers: before.hook.natsUrl,
        ...userAuth(before.hook.password ?? ''),
      });
      hook.publish(before.hook.subject, JSON.stringify({ hook_event_name: 'Stop' }));
      await hook.flush();
      expect(await landed).toEqual({ workspaceId: 'ws-crash', event: { hook_event_name: 'Stop' } });
      await hook.close();

      await reconnected;
      const reply = await mcp.request(
        before.run.subject,
        JSON.stringify({ tool: 'memory.propose', args: { content: 'survived', scope: 'global' } }),
        { timeout: 10_000 },
      );
      expect(okResult(ToolReply.parse(reply.json())).status).toBe('pending');
      expect(core.platform.runs.get(before.run.runId)?.status).toBe('running');
      // The workspace keeps its one hook user: a converge hands out the same credentials.
      expect((await core.platform.createHookPublisher('ws-crash')).password).toBe(before.hook.password);
    } finally {
      await mcp.close();
      await core.dispose();
    }
    expect(serversFor(configFile)).toEqual([]);
  });
});
