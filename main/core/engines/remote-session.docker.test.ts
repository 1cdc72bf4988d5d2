import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectRun } from '../../../test/helpers/run-client';
import { okResult } from '../../../test/helpers/platform-fixture';
import { remoteFleetForSuite } from '../../../test/helpers/suite';
import { geminiUserTexts } from '../../../test/helpers/gemini-api';
import { loadTools, offered, toolResult } from '../../../test/helpers/tool-search';
import { readUntil, waitFor } from '../../../test/helpers/wait';
import { mcpToolName } from '../../../shared/platform-tools';
import { agentCliVolumeName } from './engine-copies';
import { DELEGATION_RELAY_PORT, GATEWAY_RELAY_PORT, LEAF_WORKER_PORT } from './engine-leaf';

async function nextServerError(nc: NatsConnection): Promise<Error> {
  for await (const s of nc.status()) if (s.type === 'error') return s.error;
  throw new Error('connection closed without an error');
}

const MEMORY_SEARCH = `mcp__nexus__${mcpToolName('memory.search')}`;

/**
 * Run in the remote worker as `node -e PROBE <session> <relay base> <direct base>`: streamed Messages requests with the
 * session's gateway credential, through each base in turn on a kept-alive connection; per request the time to the first
 * byte of the answer and to its end (ms), as JSON.
 */
const OVERHEAD_PROBE = [
  'const http=require("http"),fs=require("fs");const [id,relay,direct]=process.argv.slice(1);',
  'const key=fs.readFileSync(`/tmp/nexus-sessions/${id}/gateway-key`,"utf8").trim();',
  'const body=JSON.stringify({model:"m",max_tokens:8,stream:true,messages:[{role:"user",content:"ping"}]});',
  'const agents={relay:new http.Agent({keepAlive:true,maxSockets:1}),direct:new http.Agent({keepAlive:true,maxSockets:1})};',
  'const one=(k,base)=>new Promise((ok,fail)=>{const u=new URL(base+"/claude/v1/messages"),t=performance.now();let f=0;',
  'const q=http.request(u,{method:"POST",agent:agents[k],headers:{"content-type":"application/json","x-api-key":key,"anthropic-version":"2023-06-01"}},',
  '(r)=>{r.on("data",()=>{f=f||performance.now()-t});r.on("end",()=>ok({s:r.statusCode,f,t:performance.now()-t}))});q.on("error",fail);q.end(body)});',
  '(async()=>{const out={relay:{status:0,ttfb:[],total:[]},direct:{status:0,ttfb:[],total:[]}};',
  'for(let i=0;i<62;i++)for(const [k,b] of [["relay",relay],["direct",direct]]){const x=await one(k,b);',
  'if(i<2)continue;out[k].status=x.s;out[k].ttfb.push(x.f);out[k].total.push(x.t)}',
  'console.log(JSON.stringify(out))})().catch((e)=>{console.error(String(e));process.exit(1)});',
].join('');

// Issue 29: sessions on a remote engine, their platform traffic through that engine's leaf node.
// Needs root: a second dockerd and an sshd on 127.0.0.1 (test/helpers/second-engine.ts), both
// removed afterwards, with the leaf container and the workspace.
describe('a real Claude Code session on a remote engine', () => {
  const ws = `rs-${randomBytes(3).toString('hex')}`;
  const remote = remoteFleetForSuite({ workspace: ws, create: { delegation: { access: 'read' } } });

  it('starts the session there; its hooks reach attention through the leaf node on that engine’s gateway', async () => {
    const s = await remote.fleet.createSession(ws, { name: 'first', initialMessage: 'say hello from afar' });
    const turn = await remote.fleet.firstTurn(s.id);
    expect(JSON.stringify(turn.body.messages)).toContain('say hello from afar');
    // SessionStart → … → Stop travel as hook events through the leaf: the session ends up idle.
    await remote.fleet.waitForSession(s.id, 'idle');

    // The hook forwarder was handed the leaf on the remote engine's bridge gateway, not core's server.
    const { containerId } = await remote.fleet.call('workspaces.get', { workspace: ws });
    const inspected = (await remote.engine.docker.getContainer(containerId ?? '').inspect()) as {
      NetworkSettings: { Networks: Record<string, { Gateway: string }> };
    };
    const net = Object.values(inspected.NetworkSettings.Networks)[0];
    const target = await remote.hookTarget();
    expect(target.url).toBe(`nats://${net?.Gateway}:${LEAF_WORKER_PORT}`);
    expect(target.url).not.toBe(remote.fleet.running.core.platform.url);
    // The leaf is a container on the remote engine, none on the local one.
    const leafs = await remote.engine.docker.listContainers({ filters: { label: ['nexus.leaf.engine'] } });
    expect(leafs.map((c) => c.Labels['nexus.leaf.engine'])).toEqual([remote.engineId]);
  }, 600_000);

  it('a permission request is answered by the operator, and a message is delivered to the agent', async () => {
    const marker = `/tmp/nexus-remote-${randomBytes(4).toString('hex')}`;
    const s = await remote.fleet.createSession(ws, { name: 'asks', initialMessage: 'create the marker' });
    remote.fleet.script(s.id, {
      toolUse: { name: 'Bash', input: { command: `touch ${marker}`, description: 'Marker' } },
    });
    await remote.fleet.waitForSession(s.id, 'waiting_permission');
    const { requests } = await readUntil(
      () => remote.fleet.call('permissions.list', { sessionId: s.id }),
      (l) => l.requests.length > 0,
      60_000,
    );
    expect(requests.map((r) => r.toolName)).toEqual(['Bash']);
    await remote.fleet.call('permissions.decide', { id: requests[0]!.id, behavior: 'allow' });
    await waitFor(async () => (await remote.sh(`test -e ${marker} && echo yes`)).stdout.includes('yes'), 'the marker');
    await remote.fleet.waitForSession(s.id, 'idle');

    const text = `note from the operator ${randomBytes(3).toString('hex')}`;
    await remote.fleet.call('sessions.sendMessage', { session: s.id, text });
    await waitFor(
      () => remote.fleet.turnsOf(s.id).find((t) => JSON.stringify(t.body.messages).includes(text)),
      'the message in a model request',
      120_000,
    );
  }, 600_000);

  it('the delegated MCP server answers a remote session at the relay on its engine’s gateway', async () => {
    const s = await remote.fleet.createSession(ws, { name: 'fleet', initialMessage: 'hello fleet' });
    await remote.fleet.waitForSession(s.id, 'idle');
    const config = await remote.sh(`cat $(find /tmp/nexus-sessions -name mcp.json | grep ${s.id} | head -1)`);
    const entry = (JSON.parse(config.stdout) as { mcpServers: Record<string, { url?: string; headers?: object }> })
      .mcpServers['nexus-delegated'];
    const { url } = await remote.hookTarget();
    const gateway = new URL(url).hostname;
    expect(entry?.url).toBe(`http://${gateway}:${DELEGATION_RELAY_PORT}/api/mcp`);
    // From inside the remote worker, as its CLI would: an MCP initialize through the relay.
    const probe = `fetch(${JSON.stringify(entry?.url)}, { method: 'POST', headers: { ...${JSON.stringify(entry?.headers)}, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } }) }).then(async (r) => console.log(r.status, await r.text()))`;
    const runtime = remote.fleet.running.core.workspaces.runtime;
    const r = await runtime.exec(runtime.info(ws), ['node', '-e', probe]);
    expect(r.stdout).toMatch(/^200 /);
    expect(r.stdout).toContain('serverInfo');
  }, 600_000);

  it('its model traffic goes through core’s gateway over the engine link: the real key only at the stand-in, counted', async () => {
    const { api, canary } = remote.fleet.env;
    const s = await remote.fleet.createSession(ws, { name: 'model', initialMessage: 'answer through the link' });
    remote.fleet.script(s.id, { text: 'Answered from afar.' });
    await remote.fleet.firstTurn(s.id);
    await remote.fleet.waitForSession(s.id, 'idle');
    await waitFor(
      async () => ((await remote.fleet.pane(s.id)).includes('Answered from afar.') ? true : null),
      'the answer on the pane',
    );

    // The CLI was handed the relay on its engine's bridge gateway (the leaf's, forwarded over SSH to core's gateway).
    const bridge = new URL((await remote.hookTarget()).url).hostname;
    const relay = `http://${bridge}:${GATEWAY_RELAY_PORT}`;
    const procs = await remote.sh('for p in /proc/[0-9]*; do cat $p/cmdline $p/environ 2>/dev/null; echo; done');
    expect(procs.stdout).toContain('claude');
    expect(procs.stdout).toContain(`ANTHROPIC_BASE_URL=${relay}/claude`);

    // At the stand-in, every request of the session carried the real key (the gateway's swap), never the session's own.
    const answered = api.requests.filter(
      (r) => r.path === '/v1/messages' && r.headers['x-claude-code-session-id'] === remote.fleet.agentSessionId(s.id),
    );
    expect(answered.length).toBeGreaterThan(0);
    expect(answered.every((r) => r.auth === 'x-api-key')).toBe(true);
    expect(api.sawCredential(canary)).toBe(true);
    const sessionKey = (await remote.sh(`cat /tmp/nexus-sessions/${s.id}/gateway-key`)).stdout.trim();
    expect(sessionKey).toMatch(/^nxg_/);
    expect(api.sawCredential(sessionKey)).toBe(false);
    // In the remote container: not in its files, processes (argv, environment), the tmpfs, its inspect; nor the leaf's.
    const { containerId } = await remote.fleet.call('workspaces.get', { workspace: ws });
    const files = await remote.sh(
      `grep -rlF -e '${canary}' /home /tmp /run /workspace /var/tmp /etc 2>/dev/null; true`,
    );
    const leaf = (await remote.leaves())[0];
    const places = {
      files: files.stdout,
      processes: procs.stdout,
      tmpfs: (await remote.sh('ls -la /run/nexus; cat /run/nexus/* 2>/dev/null; true')).stdout,
      inspect: JSON.stringify(await remote.engine.docker.getContainer(containerId ?? '').inspect()),
      leaf: JSON.stringify(await remote.engine.docker.getContainer(leaf?.Id ?? '').inspect()),
      pane: await remote.fleet.pane(s.id),
    };
    for (const [where, text] of Object.entries(places)) expect(text.includes(canary), where).toBe(false);

    // The ledger counted each answer once, with the stand-in's tokens (10 in, 5 out).
    const usage = await readUntil(
      () => remote.fleet.call('usage.get', { session: s.id }),
      (u) => u.totals.requests >= answered.length,
    );
    expect(usage.totals).toMatchObject({
      requests: answered.length,
      input: answered.length * 10,
      output: answered.length * 5,
    });

    // What the link costs: streamed requests from the remote worker through the relay and straight to core's gateway
    // address (reachable here only because both engines share this machine's network), taking turns.
    const port = readFileSync(join(remote.fleet.dataDir, 'gateway-port'), 'utf8').trim();
    const direct = `http://${remote.fleet.env.gateway}:${port}`;
    const r = await remote.sh(`node -e '${OVERHEAD_PROBE}' ${s.id} ${relay} ${direct}`);
    const m = JSON.parse(r.stdout) as Record<'relay' | 'direct', { status: number; ttfb: number[]; total: number[] }>;
    expect([m.relay.status, m.direct.status]).toEqual([200, 200]);
    const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))] ?? 0;
    const line = (k: 'relay' | 'direct') =>
      `${k}: first byte p50 ${p(m[k].ttfb, 0.5).toFixed(2)} p99 ${p(m[k].ttfb, 0.99).toFixed(2)} ms, ` +
      `whole p50 ${p(m[k].total, 0.5).toFixed(2)} ms`;
    console.info(
      `model gateway over the engine link (${m.relay.ttfb.length} requests each): ${line('relay')}; ${line('direct')}`,
    );
    expect(p(m.relay.ttfb, 0.5) - p(m.direct.ttfb, 0.5)).toBeLessThan(30);
  }, 600_000);

  it('a platform tool call (memory.search) lands, and that run publishing as another run is refused at the leaf', async () => {
    const s = await remote.fleet.createSession(ws, { name: 'tools', initialMessage: 'search the memories' });
    const id = `toolu_mem_${randomBytes(6).toString('hex')}`;
    const load = loadTools([MEMORY_SEARCH], (r) => offered(r, 'mcp__nexus__').includes(MEMORY_SEARCH), [
      { toolUse: { name: MEMORY_SEARCH, input: { query: 'deploys' }, id } },
      { text: 'Searched.' },
    ]);
    remote.fleet.respond(s.id, load.respond);
    await load.request;
    const result = await waitFor(() => toolResult(remote.fleet.turnsOf(s.id), id), 'the memory.search result', 240_000);
    expect(result.is_error).not.toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/memories/);

    // The run's own credential (its JWT, as the worker holds it) at the leaf: itself yes, another run no.
    const platform = remote.fleet.running.core.platform;
    const client = await connectRun(await remote.runCredsOf(s.id));
    expect(okResult(await client.call('skill.list', {}))).toHaveProperty('skills');
    const other = await platform.createRun(
      platform.createAgent({ name: `other-${randomBytes(3).toString('hex')}` }).id,
    );
    const error = nextServerError(client.nc);
    client.nc.publish(other.subject, JSON.stringify({ tool: 'memory.propose', args: { content: 'as another run' } }));
    expect((await error).message).toMatch(/Permissions Violation for Publish to "tools\.invoke\./);
    await client.close();
  }, 600_000);

  it('an ACP kind runs there too: the Gemini CLI copied to the engine at its first session, its turn over the link', async () => {
    const dir = process.env.NEXUS_GEMINI_CLI_DIR;
    if (!dir) throw new Error('NEXUS_GEMINI_CLI_DIR is not set: scripts/test.sh installs the pinned Gemini CLI');
    const volume = agentCliVolumeName(dir).name;
    const volumes = async () => (await remote.engine.docker.listVolumes()).Volumes.map((v) => v.Name);
    // The workspace mounts the kind's volume from its create, empty: no Gemini session has run on this engine yet.
    expect(await volumes()).toContain(volume);
    expect(await volumes()).not.toContain(`${volume}-complete`);

    const marker = `from afar ${randomBytes(3).toString('hex')}`;
    const s = await remote.fleet.createSession(ws, { name: 'gemini', initialMessage: marker, agent: 'gemini' });
    const { geminiApi, geminiCanary } = remote.fleet.env;
    await waitFor(
      () => geminiApi.turns().find((r) => geminiUserTexts(r).some((t) => t.includes(marker))),
      'the prompt at the Gemini stand-in',
      240_000,
    );
    // The bridge's updates reach core through the leaf: the turn's end makes the session idle.
    await remote.fleet.waitForSession(s.id, 'idle');
    expect(await volumes()).toContain(`${volume}-complete`);
    const procs = await remote.sh('for p in /proc/[0-9]*; do cat $p/cmdline $p/environ 2>/dev/null; echo; done');
    expect(procs.stdout).toContain('--acp');
    expect(procs.stdout.includes(geminiCanary)).toBe(false);
    expect(geminiApi.sawCredential(geminiCanary)).toBe(true);
  }, 600_000);

  it('the SSH connection cut mid-session comes back with its forwards: the next message and its hooks arrive', async () => {
    const s = await remote.fleet.createSession(ws, { name: 'cut', initialMessage: 'before the cut' });
    const idle = await remote.fleet.waitForSession(s.id, 'idle');
    const logins = remote.engine.logins();
    remote.engine.cutConnections();
    const text = `after the cut ${randomBytes(3).toString('hex')}`;
    // The message goes to the workspace's resident hook relay over NATS through the leaf
    // (main/core/platform/message-relay.ts), by docker exec only when no relay answers; a reply lost
    // across the cut makes core ask the relay again with the same delivery id. The turn's hooks come
    // back by the leaf too, whose link to core is the remote forward asked again on the new connection.
    await remote.fleet.call('sessions.sendMessage', { session: s.id, text });
    await waitFor(
      () => remote.fleet.turnsOf(s.id).find((t) => JSON.stringify(t.body.messages).includes(text)),
      'the message after the cut in a model request',
      120_000,
    );
    // The Stop hook of that turn reached core through the leaf after its link came back.
    await remote.fleet.waitForSession(
      s.id,
      (x) => x.agentState === 'idle' && (x.agentStateAt ?? '') > (idle.agentStateAt ?? ''),
    );
    expect(remote.engine.logins()).toBeGreaterThan(logins);
    // A platform call through the leaf works again too.
    const client = await connectRun(await remote.runCredsOf(s.id));
    expect(okResult(await client.call('skill.list', {}))).toHaveProperty('skills');
    await client.close();
  }, 600_000);

  it('removing the engine (its workspace deleted first) takes its leaf container away with it', async () => {
    await remote.fleet.call('workspaces.delete', { workspace: ws });
    expect(await remote.leaves()).toHaveLength(1);
    await remote.fleet.call('engines.remove', { engine: remote.engineId });
    expect(await remote.leaves()).toEqual([]);
  }, 300_000);
});
