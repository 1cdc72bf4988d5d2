import { userAuth } from './nats/auth';
import { spawn } from 'node:child_process';
import { connect } from '@nats-io/transport-node';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testCore } from '../../../test/helpers/core';
import { workerHostAddress } from '../../../test/helpers/network';
import { CoreConfig } from '../config';
import { operatorContext } from '../handlers';
import { freePort } from '../../../test/helpers/free-port';

const op = operatorContext('internal');

async function waitForServer(url: string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await (await connect({ servers: url, reconnect: false })).close();
      return;
    } catch (e) {
      if (i > 100) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

describe('managed nats-server', () => {
  it('writes its config in the data dir, listens on the workers’ address and stops the child on dispose', async () => {
    const t = await testCore();
    const url = String(t.core.platform.url);
    const gateway = await workerHostAddress();
    expect(url).toContain(`nats://${gateway}:`);
    const conf = join(t.dataDir, 'nats', 'nats.conf');
    const parsed = JSON.parse(readFileSync(conf, 'utf8')) as Record<string, unknown>;
    expect(parsed.host).toBe(gateway);
    // Operator mode: no user is written into the config; a run's JWT is checked against the account.
    expect(parsed).toMatchObject({ resolver: 'MEMORY', operator: expect.stringMatching(/^eyJ/) });
    expect(parsed).not.toHaveProperty('authorization');
    expect(statSync(join(t.dataDir, 'nats', 'identity.json')).mode & 0o777).toBe(0o600);
    const run = await t.core.platform.createRun(t.core.platform.createAgent({ name: 'conf' }).id);
    await (await connect({ servers: url, ...userAuth(run.password ?? ''), reconnect: false })).close();
    await t.core.dispose();
    await expect(connect({ servers: url, ...userAuth(run.password ?? ''), reconnect: false })).rejects.toThrow(
      /connection refused/,
    );
    expect(t.core.status.get().nats.state).toBe('stopped');
    await t.cleanup();
  });

  it('refuses a configured listen address that means every interface', () => {
    for (const host of ['0.0.0.0', '::'])
      expect(() => CoreConfig.parse({ nats: { host } })).toThrow(/one address, not every interface/);
  });

  it('restarts a managed server that dies on the same address with its users; core serves again', async () => {
    const t = await testCore();
    try {
      const { platform, status } = t.core;
      const url = platform.url;
      const agent = platform.createAgent({ name: 'survivor' });
      const run = await platform.createRun(agent.id);
      const hook = await platform.createHookPublisher('ws-kept');
      // A run's long-lived connection, as nexus-mcp holds it (its calls: nexus-mcp.test.ts).
      const mcp = await connect({
        servers: run.natsUrl,
        ...userAuth(run.password ?? ''),
        inboxPrefix: run.inboxPrefix,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 100,
      });
      const reconnected = (async () => {
        for await (const s of mcp.status()) if (s.type === 'reconnect') return true;
      })();
      const pid = Number(platform.serverPid);
      process.kill(pid, 'SIGKILL');
      await expect.poll(() => status.get().nats.reason, { timeout: 10_000 }).toMatch(/restarted after it exited/);
      expect(status.get().nats.state).toBe('running');
      expect(platform.url).toBe(url);
      expect(platform.serverPid).not.toBe(pid);
      expect(await reconnected).toBe(true);
      await mcp.close();
      // "running" means core serves again: one hook event with the pre-crash credentials lands.
      const landed: unknown[] = [];
      platform.onHookEvent((e) => landed.push(e));
      const publisher = await connect({ servers: hook.natsUrl, ...userAuth(hook.password ?? '') });
      publisher.publish(hook.subject, JSON.stringify({ hook_event_name: 'Stop' }));
      await publisher.flush();
      await expect.poll(() => landed).toEqual([{ workspaceId: 'ws-kept', event: { hook_event_name: 'Stop' } }]);
      await publisher.close();
      // Users added after the restart reach the new server.
      const second = await platform.createRun(agent.id);
      const nc = await connect({ servers: second.natsUrl, ...userAuth(second.password ?? '') });
      await nc.close();
    } finally {
      await t.cleanup();
    }
  });

  it('accepts every run created at once as soon as its create returns, and refuses one ended meanwhile', async () => {
    const t = await testCore();
    try {
      const { platform } = t.core;
      const agent = platform.createAgent({ name: 'burst' });
      const first = await platform.createRun(agent.id);
      // Ten runs at once (sessions created together), one ended while they are being added.
      const [runs] = await Promise.all([
        Promise.all(Array.from({ length: 10 }, () => platform.createRun(agent.id))),
        platform.endRun(first.runId, 'finished'),
      ]);
      for (const run of runs) {
        const nc = await connect({
          servers: run.natsUrl,
          ...userAuth(run.password ?? ''),
          reconnect: false,
        });
        await nc.close();
      }
      await expect(
        connect({ servers: first.natsUrl, ...userAuth(first.password ?? ''), reconnect: false }),
      ).rejects.toThrow(/Authorization Violation|Authentication/);
    } finally {
      await t.cleanup();
    }
  });

  it('stops restarting a server that keeps dying, and says so', async () => {
    const t = await testCore();
    try {
      for (let i = 0; i < 6; i++) {
        const pid = Number(t.core.platform.serverPid);
        process.kill(pid, 'SIGKILL');
        if (i < 5)
          await expect
            .poll(() => t.core.platform.serverPid !== pid && t.core.status.get().nats.state, { timeout: 15_000 })
            .toBe('running');
      }
      await expect
        .poll(() => t.core.status.get().nats.reason, { timeout: 10_000 })
        .toMatch(/exited 6 times within a minute; not restarted/);
      expect(t.core.status.get().nats.state).toBe('unavailable');
      const agent = t.core.platform.createAgent({ name: 'late' });
      await expect(t.core.platform.createRun(agent.id)).rejects.toMatchObject({ code: 'nats_unavailable' });
    } finally {
      await t.cleanup();
    }
  });

  it('reports NATS unavailable with a clear reason when nats-server is missing, and core still starts', async () => {
    const t = await testCore({ nats: { binary: '/nonexistent/nats-server' } });
    try {
      const info = await t.core.dispatcher.call('app.info', {}, op);
      expect(info.nats).toEqual({ state: 'unavailable', reason: expect.stringContaining('nats-server was not found') });
      const agent = await t.core.dispatcher.call('agents.create', { name: 'a' }, op);
      await expect(t.core.dispatcher.call('runs.create', { agentId: agent.id }, op)).rejects.toMatchObject({
        code: 'nats_unavailable',
      });
    } finally {
      await t.cleanup();
    }
  });

  it('refuses platform tools on an external server, which gives no per-run identity, and says why', async () => {
    // An unauthenticated external server, started by the test: any client may publish anything there.
    const port = await freePort();
    const child = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
    await waitForServer(`nats://127.0.0.1:${port}`);
    const t = await testCore({ nats: { url: `nats://ops:s3cret-pw@127.0.0.1:${port}` } });
    try {
      expect(existsSync(join(t.dataDir, 'nats', 'nats.conf'))).toBe(false);
      expect(t.core.platform.serverPid).toBeNull();
      const info = await t.core.dispatcher.call('app.info', {}, op);
      expect(info.nats).toEqual({ state: 'unavailable', reason: expect.stringContaining('no per-run identity') });
      expect(info.nats.reason).toContain(`127.0.0.1:${port}`);
      expect(info.nats.reason).not.toContain('s3cret-pw');
      const agent = await t.core.dispatcher.call('agents.create', { name: 'ext' }, op);
      await expect(t.core.dispatcher.call('runs.create', { agentId: agent.id }, op)).rejects.toMatchObject({
        code: 'nats_unavailable',
        message: expect.stringContaining('no per-run identity'),
      });
      await expect(t.core.platform.createHookPublisher('w1')).rejects.toMatchObject({ code: 'nats_unavailable' });
      // A worker on that server trying to act as some run finds nobody serving tool calls.
      const spoof = await connect({ servers: `nats://127.0.0.1:${port}`, reconnect: false });
      await expect(
        spoof.request('tools.invoke.some-run', JSON.stringify({ tool: 'skill.list', args: {} }), { timeout: 2_000 }),
      ).rejects.toThrow(/no responders|timeout/i);
      await spoof.close();
    } finally {
      await t.cleanup();
      child.kill('SIGTERM');
    }
  });

  it('creates runs through the contract without handing the password out, and ends them', async () => {
    const t = await testCore();
    try {
      const agent = await t.core.dispatcher.call('agents.create', { name: 'ops', tools: ['memory.search'] }, op);
      const task = await t.core.dispatcher.call('tasks.create', { title: 'goal' }, op);
      const run = await t.core.dispatcher.call('runs.create', { agentId: agent.id, taskId: task.id }, op);
      expect(run).toMatchObject({
        user: `run-${run.runId}`,
        inboxPrefix: `_INBOX.${run.runId}`,
        subject: `tools.invoke.${run.runId}`,
      });
      expect(Object.keys(run)).not.toContain('password');
      expect((await t.core.dispatcher.call('agents.list', {}, op)).agents.map((a) => a.tools)).toEqual([
        ['memory.search'],
      ]);
      await t.core.dispatcher.call('runs.end', { runId: run.runId, summary: 'done' }, op);
      expect(t.core.platform.runs.get(run.runId)?.status).toBe('finished');
    } finally {
      await t.cleanup();
    }
  });
});
