import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { EventBus } from '../../main/core/events';
import { createLogger } from '../../main/core/log';
import { createPreviews } from '../../main/core/previews';
import { Redactor } from '../../main/core/redact';
import { SessionsConfig } from '../../main/core/sessions/config';
import { SessionLookup } from '../../main/core/sessions/session-lookup';
import { SessionSignals } from '../../main/core/sessions/session-signals';
import { SessionStore } from '../../main/core/sessions/session-store';
import { SessionUpdates } from '../../main/core/sessions/session-updates';
import { openStore } from '../../main/core/store/open';
import { WorkspaceRuntime } from '../../main/core/workspaces/runtime';
import { WorkspaceStore } from '../../main/core/workspaces/workspace-store';
import { WORKER_NODE } from '../../main/core/docker';
import { ensureWorkerNetwork } from '../../main/core/docker/network';
import { ensureTestWorkerImage, realDocker } from './docker';
import { PREVIEW_APP } from './preview-app';
import { insertSession } from './session-row';
import { tempDir } from './temp-dir';

/**
 * One worker container on the `nexus` bridge (the real image, uid 1000) with a workspace row, the real session
 * store and signals, and the previews module on a loopback listener that takes preview origins as the host does.
 * `addSession` makes a session row and its worktree directory; `startApp` runs the preview app in a directory.
 */
export async function previewRig(
  opts: { chromium?: string | null; portsOf?: (sessionId: string) => { from: number; to: number } | null } = {},
) {
  const docker = realDocker();
  const dir = tempDir('nexus-previews-');
  const db = openStore(join(dir.path, 'nexus.db'));
  const workspaces = new WorkspaceStore(db);
  const runtime = new WorkspaceRuntime({ docker, store: workspaces });
  const store = new SessionStore(db);
  const redactor = new Redactor();
  const events = new EventBus(redactor);
  const log = createLogger({ file: join(dir.path, 'nexus.log'), stderr: false, redactor });
  const signals = new SessionSignals(log);
  const updates = new SessionUpdates(store, events, runtime);
  const lookup = new SessionLookup(store, runtime);
  const config = SessionsConfig.parse({});
  const image = await ensureTestWorkerImage();
  // As a workspace create does: a fresh engine has no `nexus` bridge until something makes it.
  await ensureWorkerNetwork(docker, 'nexus');
  const c = await docker.createContainer({
    Image: image,
    Entrypoint: ['sleep', 'infinity'],
    Labels: { [`nexus.test.previews-${randomBytes(4).toString('hex')}`]: '1' },
    User: '1000:1000',
    WorkingDir: '/workspace',
    HostConfig: {
      NetworkMode: 'nexus',
      Tmpfs: { '/tmp': 'rw,size=64m,mode=1777', '/workspace': 'rw,size=128m,uid=1000,gid=1000' },
    },
  });
  await c.start();
  const name = `pv${randomBytes(3).toString('hex')}`;
  const ws = workspaces.insert({
    name,
    repoUrl: 'https://example.invalid/r.git',
    secretId: null,
    image,
    volumePrefix: 'v',
  });
  workspaces.update(ws.id, { status: 'running', containerId: c.id });
  const target = { name, containerId: c.id };
  const sh = async (script: string): Promise<string> => {
    const r = await runtime.exec(target, ['sh', '-c', `set -e\n${script}`], { timeoutMs: 60_000 });
    if (r.exitCode !== 0) throw new Error(`${script}\n${r.stderr}`);
    return r.stdout;
  };
  let front: Server | null = null;
  let frontPort = 0;
  const previews = createPreviews({
    sessions: {
      get: async (ref) => updates.session(lookup.row(ref)),
      list: async (workspaceRef) =>
        store.list(workspaceRef ? runtime.info(workspaceRef).id : undefined).map((r) => updates.session(r)),
      on: (n, listener) => signals.on(n, listener),
    },
    runtime,
    docker: () => docker,
    config,
    hostUrl: () => (frontPort ? `http://127.0.0.1:${frontPort}` : null),
    events,
    log,
    dataDir: dir.path,
    ...(opts.chromium !== undefined ? { chromium: opts.chromium } : {}),
    ...(opts.portsOf ? { portsOf: opts.portsOf } : {}),
  });
  front = createServer((req, res) => {
    const n = previews.front.match(req, frontPort);
    if (n) void previews.front.handle(req, res, n);
    else res.writeHead(404).end('not a preview');
  });
  front.on('upgrade', (req, socket, head) => {
    const n = previews.front.match(req, frontPort);
    if (n) previews.front.upgrade(req, socket, head, n);
    else socket.destroy();
  });
  await new Promise<void>((r) => front?.listen(0, '127.0.0.1', () => r()));
  frontPort = (front.address() as AddressInfo).port;
  const started = previews.start();
  return {
    docker,
    events,
    signals,
    previews,
    workspace: ws,
    containerId: c.id,
    frontPort,
    sh,
    async addSession(session: string) {
      await sh(`mkdir -p ${config.worktreesDir}/${session}`);
      return insertSession(db, { workspace_id: ws.id, name: session });
    },
    /** The preview app on `port` (bound to `host`), started in `cwd`; resolves once it listens. */
    async startApp(cwd: string, port: number, host = '0.0.0.0') {
      await runtime.exec(
        target,
        ['sh', '-c', `cd ${cwd} && (setsid ${WORKER_NODE} -e "$APP" ${port} ${host} >/dev/null 2>&1 &)`],
        {
          env: { APP: PREVIEW_APP },
        },
      );
      // One Node in the container tries every 50 ms for 20 s (a Node start per try costs a second on a busy machine).
      const probe = `const t=Date.now();(function go(){require('net').connect(${port},'${host === '0.0.0.0' ? '127.0.0.1' : host}').on('connect',()=>process.exit(0)).on('error',()=>Date.now()-t>20000?process.exit(1):setTimeout(go,50))})()`;
      await sh(`${WORKER_NODE} -e "${probe}"`);
    },
    async dispose() {
      await started.dispose();
      front?.closeAllConnections();
      await new Promise((r) => front?.close(r));
      await c.remove({ force: true }).catch(() => undefined);
      db.close();
      dir.remove();
    },
  };
}
