import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, mintToken, sampleArgs, startNexus } from '../../../test/helpers/mcp';
import { toolAccess } from './tool';
import { tools as allTools } from './tools';

/** What a token may be offered: an operator-class tool (set_rule) is offered to none (server.test.ts covers it). */
const tools = allTools.filter((t) => toolAccess(t) !== 'operator');

type Nexus = Awaited<ReturnType<typeof startNexus>>;
type ToolResult = Awaited<ReturnType<Client['callTool']>>;
const errorOf = (r: ToolResult) => (r._meta?.['nexus/error'] ?? null) as { code: string; message: string } | null;
const textOf = (r: ToolResult) => (r.content as { type: string; text: string }[]).map((c) => c.text).join('\n');

describe('MCP over Streamable HTTP with the SDK client', () => {
  let nexus: Nexus;
  let client: Client;
  beforeAll(async () => {
    nexus = await startNexus({ quota: { maxWorkspaces: 7, maxSessionsPerWorkspace: 3 } });
    client = await connectClient(nexus.mcpUrl, (await mintToken(nexus.running, 'vault')).secret);
  });
  afterAll(async () => {
    await client.close();
    await nexus.stop();
  });

  it('introduces itself as nexus with tools and instructions', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'nexus', version: 'test' });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toMatch(/get_nexus_info/);
  });

  it('publishes every tool with a described input schema and an output schema', async () => {
    const { tools: listed } = await client.listTools();
    expect(listed.map((t) => t.name).sort()).toEqual(tools.map((t) => t.name).sort());
    for (const tool of listed) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(20);
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      for (const [name, prop] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect((prop as { description?: string }).description, `${tool.name}.${name}`).toBeTruthy();
      }
    }
    const create = listed.find((t) => t.name === 'create_session');
    // A name, or an issue to start from (the name then defaults to issue-<n>-<title words>).
    expect(create?.inputSchema.required).toEqual(['workspace']);
    expect(Object.keys(create?.inputSchema.properties ?? {})).toEqual([
      'workspace',
      'name',
      'initial_message',
      'agent',
      'issue',
    ]);
  });

  it('answers get_nexus_info with version, uptime, component states and quota against the configured limits', async () => {
    const r = await client.callTool({ name: 'get_nexus_info', arguments: {} });
    expect(r.isError).toBeFalsy();
    const info = r.structuredContent as Record<string, unknown>;
    const appInfo = await nexus.running.core.dispatcher.call(
      'app.info',
      {},
      { transport: 'internal', caller: { kind: 'operator' } },
    );
    expect(info).toMatchObject({
      version: 'test',
      docker: appInfo.docker,
      nats: appInfo.nats,
      vault: appInfo.vault,
      // The 4 GiB default container holds 16 sessions at 256 MiB: the configured 3 is the cap.
      quota: {
        workspaces: { used: 0, limit: 7 },
        sessionsPerWorkspace: { limit: 3, configured: 3, memoryHolds: 16, highest: 0, full: [] },
      },
      fleet: { workspaces: { total: 0 }, sessions: { total: 0 } },
    });
    expect(info.uptimeSeconds).toBeGreaterThanOrEqual(0);
    const attention = await nexus.running.core.dispatcher.call(
      'attention.get',
      {},
      { transport: 'internal', caller: { kind: 'operator' } },
    );
    expect(info.attention).toEqual({
      counts: attention.counts,
      needsYou: attention.needsYou,
      review: attention.review,
    });
    expect(info).not.toHaveProperty('sessions');
    expect(info.attention).toMatchObject({
      counts: { needs_you: 0, working: 0, idle: 0, offline: 0 },
      review: { memories: 0, skills: 0 },
    });
    expect(textOf(r)).toMatch(/Nothing needs you\. Review queue: 0 memories, 0 skills\./);
    expect(textOf(r)).toMatch(/^Nexus test \(agent CLIs? [^)]+\), up \d+s\. Docker (available|unavailable)/);
  });

  it('adds a page of the per-session roll-up to get_nexus_info only when asked', async () => {
    const r = await client.callTool({ name: 'get_nexus_info', arguments: { detail: 'sessions', limit: 10 } });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as Record<string, unknown>).sessions).toEqual({
      sessions: [],
      total: 0,
      nextCursor: null,
    });
    expect(textOf(r)).toMatch(/skills\. Sessions 0 of 0\.\n/);
  });

  it('lists workspaces and sessions through the same operations as the UI', async () => {
    const w = await client.callTool({ name: 'list_workspaces', arguments: {} });
    const ui = await nexus.running.core.dispatcher.call(
      'workspaces.list',
      {},
      { transport: 'http', caller: { kind: 'operator' } },
    );
    expect(w.structuredContent).toEqual(ui);
    const s = await client.callTool({ name: 'list_sessions', arguments: {} });
    expect(s.structuredContent).toEqual({ sessions: [] });
    expect(textOf(s)).toMatch(/^No sessions\./);
  });

  it('calls every tool and gets either structured content or a typed error with a code', async () => {
    for (const tool of tools) {
      const r = await client.callTool({ name: tool.name, arguments: sampleArgs[tool.name] ?? {} });
      const error = errorOf(r);
      if (r.isError) {
        expect(error?.code, tool.name).toMatch(/^[a-z_]+$/);
        expect(textOf(r), tool.name).toBe(`[${error?.code}] ${error?.message}`);
      } else {
        expect(r.structuredContent, tool.name).toBeDefined();
        expect(textOf(r).length, tool.name).toBeGreaterThan(0);
      }
    }
  });

  it('reports an unknown workspace as a typed error, not a crash', async () => {
    const r = await client.callTool({ name: 'get_workspace', arguments: { workspace: 'no-such-workspace' } });
    expect(r.isError).toBe(true);
    expect(['not_found', 'unavailable']).toContain(errorOf(r)?.code);
  });

  it('rejects invalid arguments with a message naming the field', async () => {
    const r = await client.callTool({ name: 'create_session', arguments: { workspace: 'alpha', name: 'Not Valid!' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/name/);
  });
});
