import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { operatorContext } from '../../../main/core/handlers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newBearer, residentMcpEntry, residentRunFile } from '../../../main/core/sessions/launch/resident-mcp';
import type { RunCredentials } from '../../../main/core/platform/platform-service';
import { RESIDENT_RUN_FILE } from '../../../shared/resident-mcp';
import { platformFixture } from '../../../test/helpers/platform-fixture';
import { tempDir } from '../../../test/helpers/temp-dir';
import { createResidentServer } from './resident-server';
import { linkRun, type RunIdentity } from './run-link';

type Fixture = Awaited<ReturnType<typeof platformFixture>>;

describe('the resident nexus-mcp (one per container, every session as itself)', () => {
  let f: Fixture;
  let dir: ReturnType<typeof tempDir>;
  let resident: ReturnType<typeof createResidentServer>;
  let port: number;
  /** Which run's identity each NATS link the server made was for. */
  let links: RunIdentity[];
  /** Which of those links were closed. */
  let closedRuns: string[];
  const clients: Client[] = [];

  const listen = async (): Promise<void> => {
    links = [];
    closedRuns = [];
    // The port is the server's own (its Host check names it): take a free one, then serve on it.
    resident = createResidentServer({
      port,
      stateRoot: dir.path,
      sweepMs: 200,
      link: (id, name) => {
        links.push(id);
        const link = linkRun(id, name);
        void link.closed.then(() => closedRuns.push(id.runId));
        return link;
      },
      log: () => undefined,
    });
    await new Promise<void>((r) => resident.server.listen(port, '127.0.0.1', () => r()));
  };

  beforeEach(async () => {
    f = await platformFixture();
    dir = tempDir();
    const probe = createResidentServer({ port: 0, stateRoot: dir.path });
    await new Promise<void>((r) => probe.server.listen(0, '127.0.0.1', () => r()));
    port = (probe.server.address() as AddressInfo).port;
    await probe.close();
    await listen();
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => undefined);
    await resident.close();
    dir.remove();
    await f.cleanup();
  });

  /** What core's launch writes for a session: its run file and password beside it; its MCP config entry. */
  const session = (sessionId: string, creds: RunCredentials) => {
    const bearer = newBearer();
    mkdirSync(join(dir.path, sessionId), { recursive: true });
    writeFileSync(join(dir.path, sessionId, 'nats-password'), `${creds.password}\n`, { mode: 0o600 });
    writeFileSync(join(dir.path, sessionId, RESIDENT_RUN_FILE), residentRunFile(creds, bearer), { mode: 0o600 });
    return { bearer, entry: residentMcpEntry(port, sessionId, bearer) };
  };
  const connect = async (headers: Record<string, string>, url = `http://127.0.0.1:${port}/mcp`): Promise<Client> => {
    const client = new Client({ name: 'agent-cli-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    clients.push(client);
    return client;
  };
  const text = (r: unknown): Record<string, unknown> => {
    const res = r as CallToolResult;
    const first = res.content[0];
    if (res.isError || first?.type !== 'text') throw new Error(`tool error: ${JSON.stringify(res.content)}`);
    return JSON.parse(first.text) as Record<string, unknown>;
  };
  const initialize = {
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  };
  const post = (headers: Record<string, string>, message: object = initialize): Promise<Response> =>
    fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
    });

  it('serves two sessions at once, each calling as its own run on its own NATS connection', async () => {
    const agent = f.agent('workspace:w1');
    const runA = await f.core.platform.createRun(agent.id, f.core.platform.createTask({ title: 'A' }).id);
    const runB = await f.core.platform.createRun(agent.id, f.core.platform.createTask({ title: 'B' }).id);
    const a = await connect(session('sessA', runA).entry.headers);
    const b = await connect(session('sessB', runB).entry.headers);
    expect((await a.listTools()).tools.map((t) => t.name)).toContain('memory_propose');
    const fromA = text(await a.callTool({ name: 'memory_propose', arguments: { content: 'from A' } }));
    const fromB = text(await b.callTool({ name: 'memory_propose', arguments: { content: 'from B' } }));
    expect(f.core.review.memories.get(String(fromA.id))?.runId).toBe(runA.runId);
    expect(f.core.review.memories.get(String(fromB.id))?.runId).toBe(runB.runId);
    // One link per session, each with that session's run's own user and secret.
    expect(links.map((l) => [l.runId, l.user, l.password])).toEqual([
      [runA.runId, runA.user, runA.password],
      [runB.runId, runB.user, runB.password],
    ]);
  }, 60_000);

  it("follows an edit of the session's agent record while it runs (list_changed over HTTP, no restart)", async () => {
    const agent = f.agent('workspace:w7');
    const client = await connect(session('sessA', await f.core.platform.createRun(agent.id)).entry.headers);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('memory_search');
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    await f.core.dispatcher.call(
      'agents.update',
      { id: agent.id, tools: ['skill.list', 'skill.view'] },
      operatorContext('internal'),
    );
    await changed;
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['skill_list', 'skill_view']);
  }, 60_000);

  it("refuses a wrong bearer, another session's bearer, no bearer and an unknown session, before any NATS link", async () => {
    const agent = f.agent('workspace:w2');
    const a = session('sessA', await f.core.platform.createRun(agent.id));
    const b = session('sessB', await f.core.platform.createRun(agent.id));
    const refused: Record<string, string>[] = [
      { Authorization: `Bearer ${newBearer()}`, 'x-nexus-session': 'sessA' },
      { Authorization: `Bearer ${b.bearer}`, 'x-nexus-session': 'sessA' },
      { 'x-nexus-session': 'sessA' },
      { Authorization: `Bearer ${a.bearer}`, 'x-nexus-session': 'nobody' },
      { Authorization: `Bearer ${a.bearer}`, 'x-nexus-session': '../sessA' },
      { Authorization: `Bearer ${a.bearer.slice(0, -1)}`, 'x-nexus-session': 'sessA' },
    ];
    for (const headers of refused) expect((await post(headers)).status).toBe(401);
    expect(links).toEqual([]);
    expect((await post(a.entry.headers)).status).toBe(200);
  }, 60_000);

  it('answers only requests addressed to its own loopback Host (no DNS rebinding)', async () => {
    const a = session('sessA', await f.core.platform.createRun(f.agent('workspace:w3').id));
    const at = (host: string): Promise<number> =>
      new Promise((resolve, reject) => {
        void import('node:http').then(({ request }) => {
          const req = request(
            {
              host: '127.0.0.1',
              port,
              path: '/mcp',
              method: 'POST',
              headers: { host, 'content-type': 'application/json', ...a.entry.headers },
            },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on('error', reject);
          req.end('{}');
        });
      });
    expect(await at('evil.example:80')).toBe(403);
    expect(await at(`attacker.test:${port}`)).toBe(403);
    expect(await at('127.0.0.1:1')).toBe(403);
    // Its own Host with a body that is no JSON-RPC message: past the Host check, refused by validation.
    expect(await at(`127.0.0.1:${port}`)).toBe(400);
    expect(links).toHaveLength(0);
  }, 60_000);

  it("a session naming another session's MCP session id gets nothing of it", async () => {
    const agent = f.agent('workspace:w4');
    const runA = await f.core.platform.createRun(agent.id);
    const runB = await f.core.platform.createRun(agent.id);
    const a = session('sessA', runA);
    const b = session('sessB', runB);
    const clientA = await connect(a.entry.headers);
    text(await clientA.callTool({ name: 'skill_list', arguments: {} }));
    const transportA = (clientA as unknown as { transport: StreamableHTTPClientTransport }).transport;
    // B's headers with A's MCP session id: served as B (its own run), never on A's link.
    const res = await post(
      { ...b.entry.headers, 'mcp-session-id': String(transportA.sessionId), 'mcp-protocol-version': '2025-06-18' },
      { method: 'tools/call', params: { name: 'memory_propose', arguments: { content: 'who am I' } } },
    );
    const reply = JSON.parse(/^data: (.*)$/m.exec(await res.text())?.[1] ?? '{}') as { result: CallToolResult };
    const made = text(reply.result);
    expect(f.core.review.memories.get(String(made.id))?.runId).toBe(runB.runId);
    expect(links.map((l) => l.runId)).toEqual([runA.runId, runB.runId]);
  }, 60_000);

  it('a restarted server takes up the MCP sessions the clients hold, and each still calls as itself', async () => {
    const agent = f.agent('workspace:w5');
    const runA = await f.core.platform.createRun(agent.id);
    const runB = await f.core.platform.createRun(agent.id);
    const a = await connect(session('sessA', runA).entry.headers);
    const b = await connect(session('sessB', runB).entry.headers);
    text(await a.callTool({ name: 'skill_list', arguments: {} }));
    await resident.close();
    // As its loop does: started again 0.2 s after it died (the clients' sockets to it are gone by then).
    await new Promise((r) => setTimeout(r, 200));
    await listen();
    const fromA = text(await a.callTool({ name: 'memory_propose', arguments: { content: 'after restart A' } }));
    const fromB = text(await b.callTool({ name: 'memory_propose', arguments: { content: 'after restart B' } }));
    expect(f.core.review.memories.get(String(fromA.id))?.runId).toBe(runA.runId);
    expect(f.core.review.memories.get(String(fromB.id))?.runId).toBe(runB.runId);
  }, 60_000);

  it("closes a session's NATS link when core ends its run (its credential revoked); the other session keeps its own", async () => {
    const agent = f.agent('workspace:w8');
    const runA = await f.core.platform.createRun(agent.id);
    const runB = await f.core.platform.createRun(agent.id);
    const a = await connect(session('sessA', runA).entry.headers);
    const b = await connect(session('sessB', runB).entry.headers);
    text(await a.callTool({ name: 'skill_list', arguments: {} }));
    text(await b.callTool({ name: 'skill_list', arguments: {} }));
    await f.core.platform.endRun(runA.runId, 'finished', 'done');
    await expect.poll(() => closedRuns, { timeout: 20_000 }).toEqual([runA.runId]);
    expect(text(await b.callTool({ name: 'skill_list', arguments: {} }))).toEqual({ skills: [] });
  }, 60_000);

  it("closes a session's NATS link when its run file goes, and refuses it from then on", async () => {
    const runA = await f.core.platform.createRun(f.agent('workspace:w6').id);
    const a = session('sessA', runA);
    const client = await connect(a.entry.headers);
    text(await client.callTool({ name: 'skill_list', arguments: {} }));
    expect(closedRuns).toEqual([]);
    rmSync(join(dir.path, 'sessA'), { recursive: true });
    await expect.poll(() => closedRuns).toEqual([runA.runId]);
    expect((await post(a.entry.headers)).status).toBe(401);
    const res = (await client.callTool({ name: 'skill_list', arguments: {} }).catch((e: Error) => e)) as Error;
    expect(res).toBeInstanceOf(Error);
  }, 60_000);
});
