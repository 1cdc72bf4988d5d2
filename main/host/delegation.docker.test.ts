import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workspace } from '../../shared/contract';
import { operatorContext } from '../core/handlers';
import { testBridgeNetwork, type TestNetwork } from '../../test/helpers/agent-cli';
import { ensureTestWorkerImage, inspectJson } from '../../test/helpers/docker';
import { connectClient, mintToken, rawRequest, toolCall } from '../../test/helpers/mcp';
import { userTexts, type ModelReply, type ModelRequest } from '../../test/helpers/model-api';
import { startRealAgentFleet, type RealAgentFleet } from '../../test/helpers/real-agent-fleet';
import { readUntil } from '../../test/helpers/wait';

/**
 * Sessions drive the fleet: the worker listener on the `nexus` bridge gateway, each workspace's
 * delegated credential, the guard rails, and the real CLI calling `mcp__nexus-delegated__*` tools against
 * the scripted model. One fleet, two workspaces: A (write) and B (read).
 */
const tag = randomBytes(3).toString('hex');
const A = `fleet-a-${tag}`;
const B = `fleet-b-${tag}`;
const BURST = 16;

/** The tool results the CLI sent back to the model, by tool name, from a conversation request. */
function toolResults(req: ModelRequest): { name: string; text: string; isError: boolean }[] {
  const names = new Map<string, string>();
  const out: { name: string; text: string; isError: boolean }[] = [];
  for (const m of req.body.messages ?? []) {
    if (typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type === 'tool_use' && b.id && b.name) names.set(b.id, b.name);
      if (b.type === 'tool_result') {
        const content = b.content;
        const text =
          typeof content === 'string'
            ? content
            : Array.isArray(content)
              ? content.map((c: { text?: string }) => c.text ?? '').join('\n')
              : '';
        out.push({ name: names.get(b.tool_use_id ?? '') ?? '?', text, isError: b.is_error === true });
      }
    }
  }
  return out;
}

const toolUses = (req: ModelRequest): number =>
  (req.body.messages ?? []).filter(
    (m) => m.role === 'assistant' && typeof m.content !== 'string' && m.content.some((b) => b.type === 'tool_use'),
  ).length;

/** Whether a conversation request belongs to the session whose first prompt starts with `marker`. */
const startedBy = (req: ModelRequest, marker: string): boolean =>
  userTexts(req.body.messages ?? [])[0]?.startsWith(`${marker}:`) ?? false;

/** Runs `node -e` in a throwaway container on `network`: what a GET of the URL answered (status or error code). */
async function probeFrom(network: string, url: string): Promise<string> {
  const image = await ensureTestWorkerImage();
  const script =
    "require('http').get(process.argv[1], { timeout: 5000 }, (r) => { console.log('status ' + r.statusCode); r.resume(); })" +
    ".on('error', (e) => console.log('error ' + e.code))" +
    ".on('timeout', function () { console.log('error timeout'); this.destroy(); });";
  return new Promise((resolve) => {
    execFile(
      'docker',
      [
        'run',
        '--rm',
        '--label',
        `nexus.test=${network}`,
        '--network',
        network,
        '--entrypoint',
        'node',
        image,
        '-e',
        script,
        url,
      ],
      { encoding: 'utf8', timeout: 120_000 },
      (_err, stdout, stderr) => resolve(`${stdout}${stderr}`.trim()),
    );
  });
}

describe('sessions drive the fleet through the worker listener', { timeout: 400_000 }, () => {
  let fleet: RealAgentFleet;
  let wsA: Workspace;
  let wsB: Workspace;
  let endpoint: URL;
  let secretA: string;
  let secretB: string;
  let other: TestNetwork;
  const clients: Client[] = [];
  const client = async (secret: string): Promise<Client> => {
    const c = await connectClient(endpoint.href, secret);
    clients.push(c);
    return c;
  };
  const errorOf = (r: Awaited<ReturnType<Client['callTool']>>) =>
    (r._meta?.['nexus/error'] as { code: string; message: string } | undefined) ?? null;

  beforeAll(async () => {
    fleet = await startRealAgentFleet({
      mcp: { delegationPort: 0, delegationRateLimit: { perMinute: 1, burst: BURST } },
    });
    wsA = await fleet.createWorkspace(A, { delegation: { access: 'write' } });
    wsB = await fleet.createWorkspace(B, { delegation: { access: 'read' } });
    const url = fleet.running.core.delegation.endpoint();
    if (!url) throw new Error('the worker listener is not listening');
    endpoint = new URL(url);
    secretA = (await fleet.running.core.delegation.credentials.secretOf(wsA.id)) ?? '';
    secretB = (await fleet.running.core.delegation.credentials.secretOf(wsB.id)) ?? '';
    other = await testBridgeNetwork('nexus-delegated-other');
  }, 900_000);
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await other?.remove();
    await fleet?.dispose();
  });

  it('gives each workspace a credential named after it, listed with the other tokens', async () => {
    const { tokens } = await fleet.call('tokens.list', {});
    const a = tokens.find((t) => t.name === `workspace ${A} (delegated)`);
    const b = tokens.find((t) => t.name === `workspace ${B} (delegated)`);
    expect(a).toMatchObject({ class: 'write', state: 'active' });
    expect(b).toMatchObject({ class: 'read', state: 'active' });
    const { credentials } = await fleet.call('delegation.list', {});
    expect(credentials.find((c) => c.workspaceId === wsA.id)).toMatchObject({ tokenId: a?.id, allWorkspaces: false });
    expect(secretA).toMatch(/^nxs_w_/);
    expect(secretB).toMatch(/^nxs_r_/);
  });

  it('listens on the bridge gateway only and serves nothing but /api/mcp with a delegated credential', async () => {
    expect(endpoint.hostname).toBe(fleet.env.gateway);
    const port = Number(endpoint.port);
    const at = { address: endpoint.hostname };
    const bearer = (s: string) => ({ authorization: `Bearer ${s}` });
    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    // The loopback host's own pages are not here.
    for (const path of ['/', '/index.html', '/api/rpc/app.info', '/api/events', '/api/terminal/x', '/api/mcp/'])
      expect((await rawRequest(port, { ...at, path, method: 'GET', headers: bearer(secretA) })).status).toBe(404);
    expect(
      (await rawRequest(port, { ...at, path: '/api/rpc/app.info', headers: bearer(secretA), body: '{}' })).status,
    ).toBe(404);
    // Host must name the gateway and this port (DNS rebinding), whatever the token.
    const wrongHost = await rawRequest(port, {
      ...at,
      path: '/api/mcp',
      headers: { ...bearer(secretA), host: `127.0.0.1:${port}` },
      body: list,
    });
    expect(wrongHost.status).toBe(403);
    expect((await rawRequest(port, { ...at, path: '/api/mcp', body: list })).status).toBe(401);
    // An ordinary token is refused here: only workspaces' credentials are for workers.
    const plain = await mintToken(fleet.running, 'write', 'not a workspace');
    expect(
      (await rawRequest(port, { ...at, path: '/api/mcp', headers: bearer(plain.secret), body: list })).status,
    ).toBe(403);
    const ok = await rawRequest(port, { ...at, path: '/api/mcp', headers: bearer(secretA), body: list });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('get_nexus_info');
    // The loopback endpoint is not on the gateway, and the worker listener is not on loopback. Both ports are
    // the kernel's free ones on different addresses, so they may be one number (a clean-clone CI run drew that):
    // then what answers there is the loopback host itself, which serves its page at / (the worker listener: 404).
    if (port === fleet.running.host.port)
      expect((await rawRequest(port, { path: '/', method: 'GET' })).status).not.toBe(404);
    else
      await expect(rawRequest(port, { path: '/api/mcp', headers: bearer(secretA), body: list })).rejects.toThrow(
        /ECONNREFUSED/,
      );
  });

  it('takes connections from the workers’ bridge and drops those from another network', async () => {
    const url = `http://${endpoint.host}/api/mcp`;
    const inside = await fleet.sh(
      A,
      `node -e "require('http').get('${url}', (r) => console.log('status ' + r.statusCode))"`,
    );
    expect(inside.stdout.trim()).toBe('status 401');
    const outside = await probeFrom(other.name, url);
    // Reset, not refused: the connection reached the listener, which dropped it for its address.
    expect(outside).toMatch(/^error (ECONNRESET|EPIPE)/);
    expect(outside).not.toMatch(/status/);
  });

  it('holds a credential to its own workspace unless the operator widens it', async () => {
    const a = await client(secretA);
    const listed = (await a.callTool({ name: 'list_workspaces', arguments: {} })).structuredContent as {
      workspaces: { name: string }[];
    };
    expect(listed.workspaces.map((w) => w.name)).toEqual([A]);
    for (const [name, args] of [
      ['get_workspace', { workspace: B }],
      ['list_sessions', { workspace: B }],
      ['create_session', { workspace: B, name: 'intruder' }],
      ['delete_workspace', { workspace: B }],
    ] as const) {
      const r = await a.callTool({ name, arguments: args });
      expect(r.isError, name).toBe(true);
      expect(errorOf(r)?.code, name).toBe('forbidden');
      expect(JSON.stringify(r.content)).toContain('only on its own workspace');
    }
    expect((await fleet.call('workspaces.get', { workspace: B })).status).toBe('running');
    const audit = fleet.running.core.audit.recent(50);
    const tokenA = fleet.running.core.delegation.credentials.get(wsA.id)?.tokenId;
    expect(audit.find((e) => e.operation === 'mcp:delete_workspace')).toMatchObject({
      actor: `token:${tokenA}`,
      outcome: 'forbidden',
      detail: `workspace:${wsA.id}`,
    });

    await fleet.call('delegation.set', { workspace: A, access: 'write', allWorkspaces: true });
    expect(fleet.running.core.delegation.credentials.get(wsA.id)?.tokenId).toBe(tokenA);
    expect(errorOf(await a.callTool({ name: 'get_workspace', arguments: { workspace: B } }))).toBeNull();
    await fleet.call('delegation.set', { workspace: A, access: 'write', allWorkspaces: false });
  });

  it('a write session calls get_nexus_info and creates a sibling session through mcp__nexus-delegated__*', async () => {
    fleet.env.api.onTurn((req): ModelReply => {
      if (!startedBy(req, 'LEAD')) return { text: 'OK.' };
      const n = toolUses(req);
      if (n === 0) return { toolUse: { name: 'mcp__nexus-delegated__get_nexus_info', input: {} } };
      if (n === 1)
        return { toolUse: { name: 'mcp__nexus-delegated__create_session', input: { workspace: A, name: 'helper' } } };
      return { text: 'Done: the helper session is starting.' };
    });
    const lead = await fleet.createSession(A, { name: 'lead', initialMessage: 'LEAD: look at Nexus, open a helper.' });
    const agentId = fleet.agentSessionId(lead.id);
    const sessions = await readUntil(
      () => fleet.call('sessions.list', { workspace: A }),
      (r) => r.sessions.some((s) => s.name === 'helper'),
      300_000,
    );
    expect(sessions.sessions.find((s) => s.name === 'helper')?.workspaceId).toBe(wsA.id);
    const last = await fleet.env.api.waitForRequest(
      (r) => r.headers['x-claude-code-session-id'] === agentId && toolUses(r) >= 2,
      120_000,
    );
    const results = toolResults(last);
    const info = results.find((r) => r.name === 'mcp__nexus-delegated__get_nexus_info');
    expect(info?.isError).toBe(false);
    // The CLI hands the model the structured result: the fleet summary, both workspaces counted.
    expect(JSON.parse(info?.text ?? '{}')).toMatchObject({ fleet: { workspaces: { total: 2 } } });
    const created = results.find((r) => r.name === 'mcp__nexus-delegated__create_session');
    expect(created).toMatchObject({ isError: false });
    expect(JSON.parse(created?.text ?? '{}')).toMatchObject({ workspaceName: A, name: 'helper' });
    // Audited with the calling session.
    const audit = fleet.running.core.audit.recent(200);
    expect(audit.find((e) => e.operation === 'mcp:create_session' && e.outcome === 'ok')?.detail).toBe(
      `session:${lead.id}`,
    );
    // The secret is in the session's 0600 --mcp-config only: not in docker inspect, the log or the events.
    const mode = await fleet.sh(A, `stat -c '%a' /tmp/nexus-sessions/${lead.id}/mcp.json`);
    expect(mode.stdout.trim()).toBe('600');
    expect((await fleet.sh(A, `cat /tmp/nexus-sessions/${lead.id}/mcp.json`)).stdout).toContain('"nexus-delegated"');
    expect(inspectJson(wsA.containerId ?? '')).not.toContain(secretA);
    expect(fleet.logText()).not.toContain(secretA);
    expect(fleet.eventsText()).not.toContain(secretA);
    fleet.env.api.onTurn(null);
  });

  it('a read session is refused create_session with an error its model receives', async () => {
    fleet.env.api.onTurn((req): ModelReply => {
      if (!startedBy(req, 'READER')) return { text: 'OK.' };
      return toolUses(req) === 0
        ? { toolUse: { name: 'mcp__nexus-delegated__create_session', input: { workspace: B, name: 'helper' } } }
        : { text: 'I cannot open sessions here.' };
    });
    const reader = await fleet.createSession(B, { name: 'reader', initialMessage: 'READER: open a helper session.' });
    const agentId = fleet.agentSessionId(reader.id);
    const after = await fleet.env.api.waitForRequest(
      (r) => r.headers['x-claude-code-session-id'] === agentId && toolUses(r) >= 1,
      300_000,
    );
    fleet.env.api.onTurn(null);
    const refused = toolResults(after).find((r) => r.name === 'mcp__nexus-delegated__create_session');
    expect(refused?.isError).toBe(true);
    expect(refused?.text).toContain('[forbidden] create_session needs a write credential');
    expect((await fleet.call('sessions.list', { workspace: B })).sessions.map((s) => s.name)).toEqual(['reader']);
    // A's credential cannot reach B's session either.
    const a = await client(secretA);
    for (const [name, args] of [
      ['get_session', { session: reader.id }],
      ['send_message', { session: `${B}/reader`, text: 'stop everything' }],
      ['delete_session', { session: reader.id }],
    ] as const) {
      const r = await a.callTool({ name, arguments: args });
      expect(errorOf(r)?.code, name).toBe('forbidden');
    }
    expect((await fleet.call('sessions.get', { session: reader.id })).status).not.toBe('error');
  });

  it('rate-limits a workspace’s calls with a typed tool error', async () => {
    const b = await client(secretB);
    let limited: Awaited<ReturnType<Client['callTool']>> | null = null;
    for (let i = 0; i <= BURST && !limited; i++) {
      const r = await b.callTool({ name: 'list_workspaces', arguments: {} });
      if (r.isError) limited = r;
    }
    expect(limited && errorOf(limited)?.code).toBe('rate_limited');
    expect(JSON.stringify(limited?.content)).toMatch(/Too many Nexus calls from this workspace; try again in \d+ s/);
    // Another workspace's budget is its own.
    const a = await client(secretA);
    expect((await a.callTool({ name: 'list_workspaces', arguments: {} })).isError).toBeFalsy();
  });

  it('a vault credential needs the vault open: with it locked the create says the workspace has no delegation', async () => {
    const C = `fleet-c-${tag}`;
    await fleet.call('vault.lock', {});
    try {
      await expect(
        fleet.call('workspaces.create', { name: C, repoUrl: fleet.env.repo.url, delegation: { access: 'vault' } }),
      ).rejects.toMatchObject({
        code: 'vault_locked',
        message: expect.stringContaining(`Workspace ${C} was created without delegation`),
      });
    } finally {
      await fleet.call('vault.unlock', {});
    }
    const c = await fleet.call('workspaces.get', { workspace: C });
    expect(fleet.running.core.delegation.credentials.get(c.id)).toBeNull();
    expect((await fleet.call('tokens.list', {})).tokens.some((t) => t.name === `workspace ${C} (delegated)`)).toBe(
      false,
    );
    await readUntil(
      () => fleet.call('workspaces.get', { workspace: C }),
      (w) => w.status !== 'creating',
      300_000,
    );
    await fleet.call('workspaces.delete', { workspace: C });
  });

  it('revoking the token stops the next call; deleting the workspace revokes its token', async () => {
    const a = await client(secretA);
    const tokenA = fleet.running.core.delegation.credentials.get(wsA.id)?.tokenId ?? '';
    await fleet.call('tokens.revoke', { id: tokenA });
    await expect(a.callTool({ name: 'list_workspaces', arguments: {} })).rejects.toThrow();
    const raw = await rawRequest(Number(endpoint.port), {
      address: endpoint.hostname,
      path: '/api/mcp',
      headers: { authorization: `Bearer ${secretA}` },
      body: toolCall('list_workspaces', {}),
    });
    expect(raw.status).toBe(401);

    const tokenB = fleet.running.core.delegation.credentials.get(wsB.id)?.tokenId ?? '';
    await fleet.running.core.dispatcher.call('workspaces.delete', { workspace: B }, operatorContext('http'));
    const { tokens } = await readUntil(
      () => fleet.call('tokens.list', {}),
      (r) => r.tokens.find((t) => t.id === tokenB)?.state === 'revoked',
      60_000,
    );
    expect(tokens.find((t) => t.id === tokenB)?.state).toBe('revoked');
    expect(fleet.running.core.delegation.credentials.get(wsB.id)).toBeNull();
  });
});
