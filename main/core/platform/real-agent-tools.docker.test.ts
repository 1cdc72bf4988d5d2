import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpToolName, toolNames as platformToolNames, type ToolName } from '../../../shared/platform-tools';
import type { AgentPermission } from '../../../shared/platform-gating';
import { dockerExec } from '../../../test/helpers/agent-cli';
import { repoRoot } from '../../../test/helpers/core';
import { inspectJson } from '../../../test/helpers/docker';
import type { ModelRequest } from '../../../test/helpers/model-api';
import { startRealAgentFleet, type RealAgentFleet } from '../../../test/helpers/real-agent-fleet';
import { loadTools, offered, toolReferences, toolResult } from '../../../test/helpers/tool-search';
import { readUntil, waitFor } from '../../../test/helpers/wait';

/**
 * The real pinned CLI through a whole Nexus against the scripted model: the platform tools the
 * model can reach are exactly the ones its workspace's agent record allows and whose check passes
 * (it asks tool search for all nine; only those load); an edit of the record reaches a running
 * session; an external stdio MCP server's tools appear as mcp__<name>__<tool>, behind its allow-list,
 * and run with a vault secret only the server sees; with NATS stopped a session still starts,
 * without platform tools, and says why.
 */
const NEXUS = 'mcp__nexus__';
const nexusName = (t: ToolName): string => `${NEXUS}${mcpToolName(t)}`;
const allNexus = platformToolNames.map(nexusName);
const DIGEST_SERVER = join(repoRoot, 'test/fixtures/digest-mcp-server.mjs');
/** Where the workspace's container holds the fixture server (the CLI starts it as the worker user). */
const SERVER_IN_CONTAINER = '/tmp/nexus-test-fixtures/digest-mcp-server.mjs';

describe('the real agent CLI: platform tools, gating and external MCP servers', () => {
  let fleet: RealAgentFleet;
  let agentId = '';
  const ws = 'gate';

  beforeAll(async () => {
    fleet = await startRealAgentFleet();
    await fleet.createWorkspace(ws);
    agentId = (await fleet.call('agents.forWorkspace', { workspace: ws })).id;
  }, 600_000);
  afterAll(async () => fleet?.dispose(), 180_000);

  const setAgent = (tools: ToolName[], permissions: AgentPermission[]) =>
    fleet.call('agents.update', { id: agentId, tools, permissions });
  /** A session whose model asks tool search for all nine platform tools; the request after the search that loaded some. */
  const searchAll = async (name: string) => {
    const s = await fleet.createSession(ws, { name, initialMessage: 'load every platform tool' });
    const load = loadTools(allNexus, (r) => offered(r, NEXUS).length > 0, [{ text: 'Loaded.' }]);
    fleet.respond(s.id, load.respond);
    return { session: s, after: await load.request };
  };

  it('the model reaches exactly the allowed mcp__nexus__* tools, and a running session follows an edit of the allow-list', async () => {
    await setAgent(['memory.search', 'skill.list'], ['memory.write', 'skill.write', 'task.write', 'board.write']);
    const { session: s, after } = await searchAll('allowed');
    expect(offered(after, NEXUS)).toEqual([nexusName('memory.search'), nexusName('skill.list')]);
    expect(toolReferences(after)).toEqual([nexusName('memory.search'), nexusName('skill.list')]);
    await fleet.waitForSession(s.id, 'idle');

    // The operator edits the record while the session runs: core pushes the run's new catalogue,
    // nexus-mcp announces list_changed, and the next search loads only what is allowed now. (The
    // CLI keeps the schemas it loaded before in `tools`, told that they are gone; a call is refused.)
    await setAgent(['run.search'], ['memory.write', 'skill.write', 'task.write', 'board.write']);
    const refused = `toolu_refused_${randomBytes(6).toString('hex')}`;
    const again = loadTools(allNexus, (r) => offered(r, NEXUS).includes(nexusName('run.search')), [
      { toolUse: { name: nexusName('memory.search'), input: { query: 'deploys' }, id: refused } },
      { text: 'Reloaded.' },
    ]);
    fleet.respond(s.id, again.respond);
    await fleet.call('sessions.sendMessage', { session: s.id, text: 'load the platform tools again' });
    expect(toolReferences(await again.request)).toEqual([nexusName('run.search')]);
    const result = await waitFor(
      () => toolResult(fleet.turnsOf(s.id), refused),
      'the result of a call to a tool no longer allowed',
      240_000,
    );
    expect(result.is_error).toBe(true);
    expect(JSON.stringify(result.content)).not.toContain('memories');
    await fleet.waitForSession(s.id, 'idle');
    await fleet.call('sessions.delete', { session: s.id, deleteBranch: true });
  }, 600_000);

  it('a tool whose check fails (a permission the agent lacks) is not offered, even with an empty allow-list', async () => {
    await setAgent([], ['board.write']);
    const { session: s, after } = await searchAll('unpermitted');
    // Not offered: memory.propose (memory.write), skill.propose (skill.write), task.* (task.write).
    expect(offered(after, NEXUS)).toEqual(
      (['board.comment', 'memory.search', 'run.search', 'skill.list', 'skill.view'] as const).map(nexusName),
    );
    await fleet.call('sessions.delete', { session: s.id, deleteBranch: true });
  }, 600_000);

  it("an external stdio MCP server's tool appears as mcp__<name>__<tool> and runs with a vault secret only the server sees", async () => {
    const token = `ext-token-${randomBytes(12).toString('hex')}`;
    await fleet.call('secrets.create', { name: 'ext-token', kind: 'generic', value: token });
    const { containerId } = await fleet.call('workspaces.get', { workspace: ws });
    const put = await dockerExec(
      containerId ?? '',
      ['sh', '-c', `mkdir -p ${SERVER_IN_CONTAINER.replace(/\/[^/]+$/, '')} && cat > ${SERVER_IN_CONTAINER}`],
      { stdin: readFileSync(DIGEST_SERVER, 'utf8') },
    );
    expect(put.exitCode).toBe(0);
    await fleet.call('agents.update', {
      id: agentId,
      mcpServers: [
        { name: 'ext', command: 'node', args: [SERVER_IN_CONTAINER], env: { API_TOKEN: { vault: 'ext-token' } } },
        // Behind the server's allow-list (nexus-mcp --filter): only `other` is reachable.
        { name: 'narrow', command: 'node', args: [SERVER_IN_CONTAINER], tools: ['other'] },
      ],
    });
    const s = await fleet.createSession(ws, { name: 'external', initialMessage: 'ask the digest server' });
    const callId = `toolu_digest_${randomBytes(6).toString('hex')}`;
    const external = (r: ModelRequest) => offered(r, 'mcp__').filter((n) => !n.startsWith(NEXUS));
    const load = loadTools(
      ['mcp__ext__token_digest', 'mcp__ext__other', 'mcp__narrow__token_digest', 'mcp__narrow__other'],
      (r) => external(r).includes('mcp__ext__token_digest') && external(r).includes('mcp__narrow__other'),
      [{ toolUse: { name: 'mcp__ext__token_digest', input: {}, id: callId } }, { text: 'The server answered.' }],
    );
    fleet.respond(s.id, load.respond);
    expect(external(await load.request)).toEqual(['mcp__ext__other', 'mcp__ext__token_digest', 'mcp__narrow__other']);

    // In default mode the CLI asks before an external server's tool runs; the operator allows it in Nexus.
    await fleet.waitForSession(s.id, 'waiting_permission');
    // (The hook's state event and its question travel separately: wait for the question.)
    const { requests } = await readUntil(
      () => fleet.call('permissions.list', { sessionId: s.id }),
      (l) => l.requests.length > 0,
      60_000,
    );
    expect(requests.map((r) => r.toolName)).toEqual(['mcp__ext__token_digest']);
    await fleet.call('permissions.decide', { id: requests[0]!.id, behavior: 'allow' });

    const result = await waitFor(
      () => toolResult(fleet.turnsOf(s.id), callId),
      'the tool_result of mcp__ext__token_digest',
      240_000,
    );
    const digest = `sha256:${createHash('sha256').update(token).digest('hex')} length:${token.length}`;
    expect(JSON.stringify(result.content)).toContain(digest);
    await fleet.waitForSession(s.id, 'idle');

    const everywhere = {
      inspect: inspectJson(containerId ?? ''),
      pane: await fleet.pane(s.id),
      log: fleet.logText(),
      events: fleet.eventsText(),
      model: JSON.stringify(fleet.env.api.requests.map((r) => r.body)),
    };
    for (const [where, text] of Object.entries(everywhere))
      expect({ where, leaked: text.includes(token) }).toEqual({ where, leaked: false });
    await fleet.call('agents.update', { id: agentId, mcpServers: [] });
    await fleet.call('sessions.delete', { session: s.id, deleteBranch: true });
  }, 600_000);

  // Last: it stops core's NATS for the rest of the file.
  it('with NATS stopped a session still starts and talks to the model, without platform tools, and says why', async () => {
    await fleet.running.core.platform.dispose();
    const s = await fleet.createSession(ws, { name: 'offline', initialMessage: 'hello without tools' });
    const turn = await fleet.firstTurn(s.id);
    // Neither loaded nor deferred: no mcp__nexus__ name anywhere in the request.
    expect(JSON.stringify(turn.body)).not.toContain(NEXUS);
    const now = await fleet.call('sessions.get', { session: s.id });
    expect(now.status).toBe('running');
    expect(now.toolsReason).toMatch(/Platform tools are off/);
  }, 600_000);
});
