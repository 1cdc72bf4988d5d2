import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MessageDelivery } from '../../shared/contract/sessions';
import { EventBus } from '../../main/core/events';
import { createLogger } from '../../main/core/log';
import { Redactor } from '../../main/core/redact';
import type { ReviewDeps, ReviewSessions } from '../../main/core/review/review-deps';
import { SessionsConfig } from '../../main/core/sessions/config';
import { SessionLookup } from '../../main/core/sessions/session-lookup';
import { SessionSignals } from '../../main/core/sessions/session-signals';
import { SessionStore } from '../../main/core/sessions/session-store';
import { SessionUpdates } from '../../main/core/sessions/session-updates';
import { openStore, type Db } from '../../main/core/store/open';
import { WorkspaceRuntime } from '../../main/core/workspaces/runtime';
import { WorkspaceStore } from '../../main/core/workspaces/workspace-store';
import { repoRoot } from './core';
import { ensureTestWorkerImage, realDocker } from './docker';
import { insertSession } from './session-row';
import { tempDir } from './temp-dir';

/**
 * One worker container (the real image, uid 1000, /workspace on tmpfs) with a git clone on `main`, a
 * workspace row for it, the real session store and signals, and the runtime's real exec: what the
 * review module runs on, without agents. Its sessions' messages are kept in `messages` (the stand-in
 * of sessions.send_message: the inbox path has its own tests). `addSession` makes the worktree and row.
 */
export async function reviewRig(opts: { network?: 'none' | 'host' } = {}) {
  const docker = realDocker();
  const dir = tempDir('nexus-review-');
  const db: Db = openStore(join(dir.path, 'nexus.db'));
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
  const c = await docker.createContainer({
    Image: image,
    Entrypoint: ['sleep', 'infinity'],
    Labels: { [`nexus.test.review-${randomBytes(4).toString('hex')}`]: '1' },
    User: '1000:1000',
    WorkingDir: '/workspace',
    HostConfig: {
      NetworkMode: opts.network ?? 'none',
      Tmpfs: { '/tmp': 'rw,size=256m,mode=1777', '/workspace': 'rw,size=512m,uid=1000,gid=1000' },
    },
  });
  await c.start();
  const ws = workspaces.insert({
    name: 'review',
    repoUrl: 'https://example.invalid/r.git',
    secretId: null,
    image,
    volumePrefix: 'v',
  });
  workspaces.update(ws.id, { status: 'running', containerId: c.id });
  const target = { name: 'review', containerId: c.id };
  const sh = async (script: string): Promise<string> => {
    const r = await runtime.exec(target, ['sh', '-c', `set -e\n${script}`], { timeoutMs: 120_000 });
    if (r.exitCode !== 0) throw new Error(`${script}\n${r.stderr}`);
    return r.stdout;
  };
  await sh(`cd /workspace; git init -q -b main .; git config user.email a@x; git config user.name Ada
    mkdir -p .git/info; echo .nexus-worktrees >> .git/info/exclude`);
  const messages: { sessionId: string; text: string }[] = [];
  const sessions: ReviewSessions = {
    get: async (ref) => updates.session(lookup.row(ref)),
    list: async (workspaceRef) =>
      store.list(workspaceRef ? runtime.info(workspaceRef).id : undefined).map((r) => updates.session(r)),
    on: (name, listener) => signals.on(name, listener),
    // Stand-ins of create and delete: the worktree and the row (no window, no agent), as a finished create leaves them.
    create: async ({ name, agent }) => {
      await sh(`cd /workspace; git worktree add -q -B nexus/${name} .nexus-worktrees/${name} main`);
      return updates.session(insertSession(db, { workspace_id: ws.id, name, ...(agent ? { agent } : {}) }));
    },
    delete: async (ref, opts) => {
      const row = lookup.row(ref);
      await sh(`cd /workspace; git worktree remove --force .nexus-worktrees/${row.name}`);
      if (opts?.deleteBranch) await sh(`cd /workspace; git branch -D ${row.branch}`);
      store.delete(row.id);
      updates.removed(row.id);
      return { deleted: true };
    },
    sendMessage: async (ref, text) => {
      const row = lookup.row(ref);
      messages.push({ sessionId: row.id, text });
      return { sessionId: row.id, status: 'delivered' as MessageDelivery, note: 'The agent took the message.' };
    },
  };
  const deps: ReviewDeps = { sessions, runtime, events, log, config };
  return {
    db,
    deps,
    events,
    signals,
    store,
    updates,
    runtime,
    messages,
    workspace: ws,
    target,
    sh,
    /** A session row and its worktree on `nexus/<name>` from `main`'s head (the clone needs a first commit). */
    async addSession(name: string) {
      await sh(`cd /workspace; git worktree add -q -b nexus/${name} .nexus-worktrees/${name} main`);
      return insertSession(db, { workspace_id: ws.id, name });
    },
    /** A session row on an existing branch `nexus/<name>` (no worktree: what the radar needs). */
    addSessionRow(name: string) {
      return insertSession(db, { workspace_id: ws.id, name });
    },
    /**
     * The workspace's hook relay (the built bundle, dist/worker, on the image's helper Node) connected to `nats` as
     * a worker's is: what takes checkpoints without an exec. Needs the rig on the host's network.
     */
    async startRelay(nats: { url: string; user: string; pass: string }) {
      const put = (file: string, body: string | Buffer) =>
        runtime.exec(target, ['sh', '-c', `cat > ${file}`], { stdin: body });
      await put('/tmp/relay.cjs', readFileSync(join(repoRoot, 'dist/worker/nexus-hook-relay.cjs')));
      await put('/tmp/nats.json', JSON.stringify(nats));
      await sh(`setsid /opt/nexus/node/bin/node /tmp/relay.cjs /tmp/nats.json 0 ${ws.id} 0 /tmp/relay.pid \
        </dev/null >/tmp/relay.log 2>&1 &
        i=0; while [ ! -f /tmp/relay.pid ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; test -f /tmp/relay.pid`);
    },
    /** Deletes a session as the sessions module does: its row, then `sessions.changed` with `removedId`. */
    removeSession(id: string) {
      store.delete(id);
      updates.removed(id);
    },
    async dispose() {
      await c.remove({ force: true }).catch(() => undefined);
      db.close();
      dir.remove();
    },
  };
}
