import { NexusError } from '../../shared/errors';
import { externalMcpFor } from '../../main/core/sessions/session-platform';
import Docker from 'dockerode';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../../main/core/log';
import { SessionsConfig, type SessionsConfigInput } from '../../main/core/sessions/config';
import { forwardHookEvents } from '../../main/core/sessions/hooks/hook-subscriber';
import { serve, type Running } from '../../main/serve';
import { repoRoot, coreDb } from './core';
import { SessionService } from '../../main/core/sessions/session-service';
import { WORKER_NODE, type ExecOptions } from '../../main/core/docker';
import { WorkspaceRuntime, type WorkspaceInfo } from '../../main/core/workspaces/runtime';
import { WorkspaceStore } from '../../main/core/workspaces/workspace-store';
import type { Db } from '../../main/core/store/open';
import type { EventBus } from '../../main/core/events';
import { TEST_NETWORK } from './network';
import { tempDir } from './temp-dir';
import { bundleWorkerScripts, type WorkerScripts } from './worker-scripts';
import { pinnedWorkerNode } from './docker';
import { testDrivers } from './agent-drivers';

/** A workspaces row (migration 004) for a container the test started itself; the runtime reads it. */
function insertWorkspaceRow(db: Db, id: string, name: string, containerId: string | null): void {
  const now = new Date().toISOString();
  db.prepare(
    `INSERT INTO workspaces (id, name, repo_url, status, container_id, volume, created_at, updated_at)
     VALUES (?, ?, '/workspace', ?, ?, ?, ?, ?)`,
  ).run(id, name, containerId ? 'running' : 'stopped', containerId, `${id}-test`, now, now);
}

export const FIXTURE_IN_CONTAINER = '/opt/agent-fixture/agent-fixture.mjs';

export interface SessionRig {
  docker: Docker;
  /** The workspaces' runtime over the host's store: workspace rows the rig inserts, containers it started. */
  runtime: WorkspaceRuntime;
  /** `runtime.exec` by container id (the rig's own checks from outside the sessions service). */
  exec(containerId: string, argv: string[], opts?: ExecOptions): ReturnType<WorkspaceRuntime['exec']>;
  db: Db;
  dbFile: string;
  events: EventBus;
  scripts: WorkerScripts;
  /** A real loopback host (serve): its core's database, event bus and platform NATS carry the sessions. */
  host: Running;
  config: SessionsConfig;
  service: SessionService;
  /** A fresh service on the same database, as after a host restart. */
  restart(): SessionService;
  addWorkspace(name: string): Promise<WorkspaceInfo>;
  /** A workspace row with no container (a stopped workspace). */
  addStoppedWorkspace(name: string): WorkspaceInfo;
  sh(containerId: string, script: string, stdin?: string): Promise<string>;
  records(containerId: string, sessionId: string): Promise<Record<string, unknown>[]>;
  ctl(containerId: string, sessionId: string, order: object): Promise<string>;
  dispose(): Promise<void>;
}

export async function sessionRig(
  configInput: SessionsConfigInput = {},
  opts: { startupTimeoutMs?: number } = {},
): Promise<SessionRig> {
  const image =
    process.env.NEXUS_TEST_BASE_IMAGE ??
    execFileSync('bash', ['scripts/build-base-image.sh'], { encoding: 'utf8' }).trim();
  const prefix = `nexus-sessions-test-${randomBytes(4).toString('hex')}`;
  const dir = tempDir('nexus-sessions-');
  const docker = new Docker({ socketPath: '/var/run/docker.sock' });
  const scripts = await bundleWorkerScripts(join(dir.path, 'bin'));
  const host = await serve({
    dataDir: join(dir.path, 'data'),
    appRoot: repoRoot,
    port: 0,
    config: { version: 'test' },
  });
  const dbFile = join(dir.path, 'data', 'nexus.db');
  const db = coreDb(host.core);
  const log = createLogger({ redactor: host.core.redactor });
  const events = host.core.events;
  const runtime = new WorkspaceRuntime({ docker, store: new WorkspaceStore(db) });
  const exec = (containerId: string, argv: string[], opts?: ExecOptions) =>
    runtime.exec({ name: 'test', containerId }, argv, opts);
  const config = SessionsConfig.parse({ agentCommand: ['node', FIXTURE_IN_CONTAINER], ...configInput });
  const containers: string[] = [];
  const subs: { dispose(): void }[] = [];
  const make = (): SessionService => {
    const s = new SessionService({
      db,
      events,
      log,
      config,
      runtime,
      tools: { hookScript: scripts.hook, inboxSendScript: scripts.inboxSend, relayScript: scripts.relay },
      hookTarget: async (workspaceId) => {
        // As core's own wiring (create-sessions.ts): without NATS, sessions start without hooks.
        const c = await host.core.platform.createHookPublisher(workspaceId).catch((e: unknown) => {
          if (e instanceof NexusError && e.code === 'nats_unavailable') return null;
          throw e;
        });
        return c ? { url: c.natsUrl, ...(c.user ? { user: c.user, pass: c.password ?? '' } : {}) } : null;
      },
      maxSessionsPerWorkspace: 64,
      drivers: testDrivers(config),
      platform: host.core.platform,
      external: externalMcpFor({
        platform: host.core.platform,
        vault: host.core.vault,
        redactor: host.core.redactor,
        config: { ...host.core.config, sessions: config },
        log,
      }),
      startupTimeoutMs: opts.startupTimeoutMs,
    });
    subs.forEach((x) => x.dispose());
    subs.length = 0;
    subs.push(forwardHookEvents(host.core.platform, s, log));
    return s;
  };

  const sh = async (containerId: string, script: string, stdin?: string): Promise<string> => {
    const r = await exec(containerId, ['sh', '-c', script], stdin === undefined ? {} : { stdin });
    if (r.exitCode !== 0) throw new Error(`in container: ${script}: ${r.stderr}`);
    return r.stdout;
  };

  const rig: SessionRig = {
    docker,
    runtime,
    exec,
    db,
    dbFile,
    events,
    scripts,
    host,
    config,
    service: make(),
    restart: () => (rig.service = make()),
    sh,
    async addWorkspace(name) {
      const id = `w${randomBytes(6).toString('hex')}`;
      // Shaped like the workspaces feature's hardened container (HOME /home/nexus, the clone at
      // /workspace, /tmp a tmpfs, every capability dropped), but as root: the offline base image's
      // root directory is not traversable by uid 1000.
      const c = await docker.createContainer({
        Image: image,
        name: `${prefix}-${name}`,
        Cmd: ['sleep', 'infinity'],
        WorkingDir: '/',
        Env: ['HOME=/home/nexus'],
        Labels: { 'nexus.test': prefix },
        HostConfig: {
          NetworkMode: TEST_NETWORK,
          CapDrop: ['ALL'],
          SecurityOpt: ['no-new-privileges'],
          Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=256m,mode=1777' },
          // The helpers' pinned Node where the worker image puts it (resources/worker/rootfs/opt/nexus/setup.sh).
          Binds: [`${pinnedWorkerNode().binary}:${WORKER_NODE}:ro`],
        },
      });
      containers.push(c.id);
      await c.start();
      const asRoot = async (script: string, stdin?: string): Promise<void> => {
        const r = await exec(c.id, ['sh', '-c', script], {
          user: '0:0',
          ...(stdin === undefined ? {} : { stdin }),
        });
        if (r.exitCode !== 0) throw new Error(`as root in container: ${script}: ${r.stderr}`);
      };
      await asRoot(`mkdir -p /home/nexus /workspace "$(dirname ${FIXTURE_IN_CONTAINER})" `);
      await asRoot(`cat > ${FIXTURE_IN_CONTAINER}`, readFileSync(scripts.agentFixture, 'utf8'));
      // nexus-mcp where the worker image puts it (resources/worker/rootfs/opt/nexus/setup.sh).
      await asRoot('mkdir -p /opt/nexus/bin && cat > /opt/nexus/nexus-mcp.cjs', readFileSync(scripts.nexusMcp, 'utf8'));
      await asRoot(
        `printf '#!/bin/sh\\nexec ${WORKER_NODE} /opt/nexus/nexus-mcp.cjs "$@"\\n' > /opt/nexus/bin/nexus-mcp && chmod 0755 /opt/nexus/bin/nexus-mcp`,
      );
      await sh(
        c.id,
        'git config --global user.email t@example.invalid && git config --global user.name test && ' +
          'git init -q -b main /workspace && cd /workspace && echo hello > README.md && git add . && git commit -qm init',
      );
      insertWorkspaceRow(db, id, name, c.id);
      return runtime.info(id);
    },
    addStoppedWorkspace(name) {
      const id = `w${randomBytes(6).toString('hex')}`;
      insertWorkspaceRow(db, id, name, null);
      return runtime.info(id);
    },
    async records(containerId, sessionId) {
      const r = await exec(containerId, ['sh', '-c', 'cat /tmp/agent-fixture/"$1".jsonl 2>/dev/null', 'sh', sessionId]);
      return r.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    async ctl(containerId, sessionId, order) {
      const script =
        "const c=require('net').createConnection('/tmp/agent-fixture/'+process.argv[1]+'.ctl');let o='';" +
        "c.on('data',d=>o+=d);c.on('end',()=>process.stdout.write(o));c.write(process.argv[2]+'\\n')";
      const r = await exec(containerId, ['node', '-e', script, sessionId, JSON.stringify(order)]);
      return r.stdout;
    },
    async dispose() {
      subs.forEach((x) => x.dispose());
      await rig.service.idle().catch(() => undefined);
      for (const id of containers)
        await docker
          .getContainer(id)
          .remove({ force: true })
          .catch(() => undefined);
      await host.stop();
      dir.remove();
    },
  };
  return rig;
}
