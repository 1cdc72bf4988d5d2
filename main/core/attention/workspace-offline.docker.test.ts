import { userAuth } from '../platform/nats/auth';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetAttention } from '../../../shared/attention';
import { ensureTestWorkerImage, workspaceTestConfig } from '../../../test/helpers/docker';
import { serveGitRepo } from '../../../test/helpers/git-http-server';
import { connectClient, mintToken, startNexus } from '../../../test/helpers/mcp';
import { waitFor } from '../../../test/helpers/wait';
import type { Core } from '..';
import { operatorContext } from '../handlers';
import { coreDb } from '../../../test/helpers/core';
import { insertSession } from '../../../test/helpers/session-row';

const op = operatorContext('internal');

// Issue 17, item 3: the attention service's third input (is the workspace running?) pinned where it
// is used. A real workspace (container) is stopped through the operation the UI uses; its session,
// whose last hook said "working", must turn offline in attention.get and in get_nexus_info.
describe('stopping a workspace turns its sessions offline', () => {
  const name = `attn-${randomBytes(3).toString('hex')}`;
  let nexus: Awaited<ReturnType<typeof startNexus>>;
  let repo: Awaited<ReturnType<typeof serveGitRepo>>;
  let core: Core;
  let reader: Client;
  let hooks: NatsConnection;
  let workspaceId: string;
  const sessionId = randomUUID();

  beforeAll(async () => {
    await ensureTestWorkerImage();
    repo = await serveGitRepo(null);
    nexus = await startNexus(workspaceTestConfig());
    core = nexus.running.core;
    reader = await connectClient(nexus.mcpUrl, (await mintToken(nexus.running, 'read')).secret);
    workspaceId = (await core.dispatcher.call('workspaces.create', { name, repoUrl: repo.url }, op)).id;
    await waitFor(
      async () => (await core.dispatcher.call('workspaces.get', { workspace: name }, op)).status === 'running',
      'the workspace to run',
      300_000,
    );
    await core.sessions.idle();
    // A session row as a finished create leaves it (the agent itself is not what this pins).
    insertSession(coreDb(core), { id: sessionId, workspace_id: workspaceId, name: 'one', agent_state: 'starting' });
    // Its agent reports work through the hook path a worker uses: its own NATS user, its own subject.
    const creds = await core.platform.createHookPublisher(workspaceId);
    hooks = await connect({ servers: creds.natsUrl, ...userAuth(creds.password ?? '') });
    hooks.publish(
      creds.subject,
      JSON.stringify({
        sessionId,
        workspaceId,
        at: new Date().toISOString(),
        event: { hook_event_name: 'PreToolUse' },
      }),
    );
    await hooks.flush();
  }, 600_000);
  afterAll(async () => {
    await hooks?.close();
    await reader?.close();
    if (core) await core.dispatcher.call('workspaces.delete', { workspace: name }, op).catch(() => undefined);
    await nexus?.stop();
    await repo?.close();
  });

  const attention = () => core.dispatcher.call('attention.get', {}, op);
  const levelOf = (fleet: Pick<FleetAttention, 'sessions'>) => fleet.sessions.find((s) => s.sessionId === sessionId);
  // With detail "sessions", get_nexus_info adds the per-session roll-up (paged; one session here).
  const nexusInfo = async () =>
    (await reader.callTool({ name: 'get_nexus_info', arguments: { detail: 'sessions' } })).structuredContent as {
      attention: Pick<FleetAttention, 'counts'>;
      sessions: Pick<FleetAttention, 'sessions'>;
    };

  it('shows the session working while its workspace runs', async () => {
    await waitFor(async () => levelOf(await attention())?.level === 'working', 'the hook to land', 30_000);
    expect(levelOf((await nexusInfo()).sessions)).toMatchObject({ level: 'working' });
  });

  it('shows it offline, saying why, once the workspace is stopped', async () => {
    let pushed = false;
    const sub = core.events.subscribe((e) => {
      if (e.name === 'attention.changed' && levelOf(e.payload as FleetAttention)?.level === 'offline') pushed = true;
    });
    await core.dispatcher.call('workspaces.stop', { workspace: name }, op);
    await waitFor(() => pushed, 'attention.changed to say offline', 15_000).finally(() => sub.dispose());
    const fleet = await attention();
    expect(levelOf(fleet)).toMatchObject({ level: 'offline', reason: `Workspace ${name} is not running` });
    expect(fleet.counts).toMatchObject({ offline: 1, working: 0 });
    const info = await nexusInfo();
    expect(levelOf(info.sessions)).toMatchObject({ level: 'offline', reason: `Workspace ${name} is not running` });
    expect(info.attention.counts).toMatchObject({ offline: 1, working: 0 });
    // Nothing but the workspace changed: the session row still says running, its last hook working.
    expect(await core.dispatcher.call('sessions.get', { session: sessionId }, op)).toMatchObject({
      status: 'running',
      agentState: 'working',
    });
  }, 120_000);
});
