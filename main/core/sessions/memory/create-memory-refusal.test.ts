import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreDb, testCore } from '../../../../test/helpers/core';
import { insertSession } from '../../../../test/helpers/session-row';
import { operatorContext } from '../../handlers';
import type { Core } from '../..';

const op = operatorContext('internal');
const MIB = 1024 ** 2;

/**
 * sessions.create through core's dispatcher (what create_session and the UI call): a workspace whose
 * container (1 GiB, 256 MiB a session) already runs four sessions takes no fifth. The refusal comes
 * before anything reaches the container (or the engine), so the workspace here is a row as a finished create
 * leaves it.
 */
describe('a session create the workspace container has no memory for', () => {
  let env: Awaited<ReturnType<typeof testCore>>;
  let core: Core;
  const name = `wsm-${randomBytes(3).toString('hex')}`;
  const workspaceId = `w${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    // No engine behind the socket: the refusal must come before anything reaches one.
    const docker = { socketPath: '/nonexistent/docker.sock', memoryBytes: 1024 * MIB };
    env = await testCore({ docker, quota: { sessionMemoryBytes: 256 * MIB } });
    core = env.core;
    const now = new Date().toISOString();
    const db = coreDb(core);
    db.prepare(
      `INSERT INTO workspaces (id, name, repo_url, status, container_id, volume, created_at, updated_at)
       VALUES (?, ?, 'https://example.com/r.git', 'running', ?, ?, ?, ?)`,
    ).run(workspaceId, name, `c${randomBytes(16).toString('hex')}`, `nexus-test-${workspaceId}`, now, now);
    for (let i = 0; i < 3; i++) insertSession(db, { workspace_id: workspaceId, name: `run${i}` });
    insertSession(db, { workspace_id: workspaceId, name: 'starting', status: 'creating', agent_state: 'starting' });
    // Neither holds memory: an exited session and one whose agent was killed.
    insertSession(db, { workspace_id: workspaceId, name: 'done', status: 'exited', agent_state: 'exited' });
    insertSession(db, { workspace_id: workspaceId, name: 'failed', status: 'error', reason: 'killed' });
  }, 120_000);

  afterAll(async () => {
    await env?.cleanup();
  });

  it('is refused with conflict, naming the limit, the running sessions and the per-session figure', async () => {
    const refused = core.dispatcher.call('sessions.create', { workspace: name, name: 'fifth' }, op);
    await expect(refused).rejects.toMatchObject({
      code: 'conflict',
      message:
        `Workspace ${name} has no memory for another session: its container is limited to 1 GiB (docker.memoryBytes) ` +
        'and runs 4 session(s) at about 256 MiB each (quota.sessionMemoryBytes), so it holds 4. Create the session ' +
        'in another workspace, delete one of its sessions, or raise docker.memoryBytes (workspaces created after ' +
        'the change get the new limit).',
    });
    const { sessions } = await core.dispatcher.call('sessions.list', { workspace: name }, op);
    expect(sessions.map((s) => s.name)).not.toContain('fifth');
    expect(sessions).toHaveLength(6);
  });
});
