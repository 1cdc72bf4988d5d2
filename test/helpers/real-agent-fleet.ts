import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DelegationChoice, OpInput, OpName, OpOutput } from '../../shared/contract';
import type { CoreConfigInput } from '../../main/core/config';
import type { Session } from '../../shared/contract/sessions';
import type { Workspace } from '../../shared/contract/workspaces';
import { operatorContext } from '../../main/core/handlers';
import { serve, type Running } from '../../main/serve';
import { dockerExec } from './agent-cli';
import type { ModelReply, ModelRequest } from './model-api';
import { repoRoot, coreDb } from './core';
import { removeOwnedBy } from './docker';
import { connectClient, mintToken } from './mcp';
import {
  giveAgentCredential,
  giveCodexCredential,
  giveGeminiCredential,
  giveChatCredential,
  startRealAgentEnv,
  type RealAgentEnv,
} from './real-agent-env';
import { tempDir } from './temp-dir';
import { readUntil, waitFor } from './wait';

/**
 * A whole Nexus (serve(): core, loopback host, /api/mcp) running the real pinned agent CLI in its
 * workspaces, on the default `nexus` bridge, against the model stand-in (real-agent-env.ts): the
 * vault initialised, the canary API key stored and set as the agent's credential. For the vitest
 * docker tests of the real CLI; Playwright starts `nexus serve` with `env.env` instead.
 */
export interface RealAgentFleet {
  env: RealAgentEnv;
  running: Running;
  dataDir: string;
  /** An operation as the operator (HTTP transport). */
  call<K extends OpName>(op: K, input: OpInput<K>): Promise<OpOutput<K>>;
  /** The SDK's MCP client with a vault-class token (reconnected after restart). */
  mcp(): Client;
  /** An MCP tool's structured result; throws with the tool's text when it answers isError. */
  tool<T = Record<string, unknown>>(name: string, args: Record<string, unknown>): Promise<T>;
  /** Creates a workspace on the served repository and waits until it is running. */
  createWorkspace(
    name: string,
    opts?: { bypass?: boolean; delegation?: DelegationChoice; engine?: string; secretId?: string },
  ): Promise<Workspace>;
  /** Creates a session (name generated unless given); returns at once, as the operation does. */
  createSession(
    workspace: string,
    opts?: { name?: string; initialMessage?: string; agent?: Session['agent'] },
  ): Promise<Session>;
  /** Waits until the session satisfies `ok` (an agentState, or a predicate), returns it. */
  waitForSession(session: string, ok: Session['agentState'] | ((s: Session) => boolean), ms?: number): Promise<Session>;
  /** The conversation id the CLI runs under (--session-id; the stand-in sees it as x-claude-code-session-id). */
  agentSessionId(session: string): string;
  /** The stand-in's conversation requests from one session, in order. */
  turnsOf(session: string): ModelRequest[];
  /** Waits for a session's first conversation request: its first user turn is what the operator typed. */
  firstTurn(session: string): Promise<ModelRequest>;
  /**
   * Scripts the model's next answers to one session, in order (a reply, or a function of the request);
   * a session with nothing scripted gets "OK.". Call it right after createSession: the CLI's first
   * request comes seconds later.
   */
  script(session: string, ...replies: ScriptedReply[]): void;
  /** Answers the session's turns with `fn` once its script is used up (replacing an earlier one). */
  respond(session: string, fn: (req: ModelRequest) => ModelReply | Promise<ModelReply>): void;
  /**
   * Sends a message once a (re)launched agent has announced its inbox: until its SessionStart, a stale
   * state refuses the message as not announced. Any other refusal fails at once.
   */
  sendWhenAnnounced(session: string, text: string, ms?: number): Promise<void>;
  /** The session's pane, as sessions.pane captures it. */
  pane(session: string): Promise<string>;
  /** `sh -c` in a workspace's container as the worker user; the exit code and output. */
  sh(workspace: string, script: string): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  /** Every event core published since the fleet started (all cores), as JSON text. */
  eventsText(): string;
  /** Core's log file (all cores on this data dir). */
  logText(): string;
  /**
   * Stops the host and starts it again on the same data dir (converge runs, the vault opens from the
   * keychain); `whileDown` runs in between (e.g. the agent's window dies while core is away).
   */
  restart(whileDown?: () => Promise<void>): Promise<void>;
  /** Removes every workspace, container and volume this fleet's cores made, then the stand-in and the repo. */
  dispose(): Promise<void>;
}

const ctx = operatorContext('http');

export type ScriptedReply = ModelReply | ((req: ModelRequest) => ModelReply);

/**
 * `config` is merged over the environment's core config (e.g. `mcp` limits for a test); `repoToken`
 * makes the served repository private (the clone then needs a provider secret holding it).
 */
export async function startRealAgentFleet(
  config: CoreConfigInput = {},
  opts: { repoToken?: string } = {},
): Promise<RealAgentFleet> {
  const env = await startRealAgentEnv(opts);
  const dir = tempDir('nexus-real-agent-');
  const dataDir = join(dir.path, 'data');
  const events: string[] = [];
  /** Workspaces made, by name, with their container (known while core is down too). */
  const workspaces = new Map<string, string | null>();
  let running = undefined as unknown as Running;
  let client: Client;
  let mcpSecret = '';

  const open = async (): Promise<void> => {
    running = await serve({
      dataDir,
      appRoot: repoRoot,
      port: 0,
      config: { version: 'test', ...env.config, ...config },
    });
    running.core.events.subscribe((m) => void events.push(JSON.stringify(m)));
    if (mcpSecret) client = await connectClient(`${running.host.url}/api/mcp`, mcpSecret);
  };
  const call = <K extends OpName>(op: K, input: OpInput<K>): Promise<OpOutput<K>> =>
    running.core.dispatcher.call(op, input, ctx);

  try {
    await open();
    await running.core.dispatcher.call('vault.init', {}, ctx);
    await giveAgentCredential((op, input) => running.core.dispatcher.call(op, input, ctx), env.canary);
    await giveCodexCredential((op, input) => running.core.dispatcher.call(op, input, ctx), env.codexCanary);
    await giveGeminiCredential((op, input) => running.core.dispatcher.call(op, input, ctx), env.geminiCanary);
    await giveChatCredential((op, input) => running.core.dispatcher.call(op, input, ctx), env.chatCanary);
    mcpSecret = (await mintToken(running, 'vault', 'real-agent-fleet')).secret;
    client = await connectClient(`${running.host.url}/api/mcp`, mcpSecret);
  } catch (e) {
    await (running as Running | undefined)?.stop();
    await env.close();
    dir.remove();
    throw e;
  }

  const getSession = (session: string) => call('sessions.get', { session });
  const scripts = new Map<string, ScriptedReply[]>();
  const responders = new Map<string, (req: ModelRequest) => ModelReply | Promise<ModelReply>>();
  env.api.onTurn((req) => {
    const id = req.headers['x-claude-code-session-id'] ?? '';
    const next = scripts.get(id)?.shift() ?? responders.get(id);
    if (!next) return { text: 'OK.' };
    return typeof next === 'function' ? next(req) : next;
  });

  const fleet: RealAgentFleet = {
    env,
    get running() {
      return running;
    },
    dataDir,
    call,
    mcp: () => client,
    async tool<T>(name: string, args: Record<string, unknown>): Promise<T> {
      const r = await client.callTool({ name, arguments: args });
      if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
      return r.structuredContent as T;
    },
    async createWorkspace(name, opts = {}) {
      workspaces.set(name, null);
      await call('workspaces.create', {
        name,
        repoUrl: env.repo.url,
        ...(opts.bypass ? { bypassPermissions: true } : {}),
        ...(opts.delegation ? { delegation: opts.delegation } : {}),
        ...(opts.engine ? { engine: opts.engine } : {}),
        ...(opts.secretId ? { secretId: opts.secretId } : {}),
      });
      return readUntil(
        () => call('workspaces.get', { workspace: name }),
        (w) => w.status === 'running' || w.status === 'error',
        300_000,
      ).then((w) => {
        if (w.status !== 'running') throw new Error(`workspace ${name}: ${w.status} ${w.reason ?? ''}`);
        workspaces.set(name, w.containerId);
        return w;
      });
    },
    createSession: (workspace, opts = {}) =>
      call('sessions.create', {
        workspace,
        name: opts.name ?? `s-${randomBytes(3).toString('hex')}`,
        ...(opts.initialMessage !== undefined ? { initialMessage: opts.initialMessage } : {}),
        ...(opts.agent ? { agent: opts.agent } : {}),
      }),
    waitForSession: (session, ok, ms = 240_000) =>
      readUntil(
        () => getSession(session),
        (s) => (typeof ok === 'string' ? s.agentState === ok : ok(s)) || s.status === 'error',
        ms,
      ).then((s) => {
        if (s.status === 'error' && ok !== 'exited') throw new Error(`session ${s.name} in error: ${s.reason ?? ''}`);
        return s;
      }),
    agentSessionId(session) {
      const row = coreDb(running.core).prepare('SELECT agent_session_id FROM sessions WHERE id = ?').get(session) as
        { agent_session_id: string } | undefined;
      if (!row) throw new Error(`no session ${session}`);
      return row.agent_session_id;
    },
    turnsOf(session) {
      const id = fleet.agentSessionId(session);
      return env.api.turns().filter((r) => r.headers['x-claude-code-session-id'] === id);
    },
    // A launch waits its turn behind the others of a batch on a loaded machine (measured: ~220 s for the first of 5
    // sessions created at once in a fresh workspace at load 45); the wait is long, the check is not weakened.
    firstTurn: (session) => waitFor(() => fleet.turnsOf(session)[0], `the first model request of ${session}`, 480_000),
    sendWhenAnnounced: (session, text, ms = 180_000) =>
      waitFor(
        () =>
          call('sessions.sendMessage', { session, text }).then(
            () => true,
            (e: unknown) =>
              e instanceof Error && /not announced its inbox/.test(e.message) ? false : Promise.reject(e),
          ),
        'the agent to announce its inbox and take the message',
        ms,
      ).then(() => undefined),
    script(session, ...replies) {
      const id = fleet.agentSessionId(session);
      scripts.set(id, [...(scripts.get(id) ?? []), ...replies]);
    },
    respond(session, fn) {
      responders.set(fleet.agentSessionId(session), fn);
    },
    pane: async (session) => (await call('sessions.pane', { session })).text,
    async sh(workspace, script) {
      const id = workspaces.get(workspace) ?? (await call('workspaces.get', { workspace })).containerId;
      if (!id) throw new Error(`workspace ${workspace} has no container`);
      return dockerExec(id, ['sh', '-c', script]);
    },
    eventsText: () => events.join('\n'),
    logText: () => {
      const file = join(dataDir, 'logs', 'nexus.log');
      return existsSync(file) ? readFileSync(file, 'utf8') : '';
    },
    async restart(whileDown) {
      await client.close().catch(() => undefined);
      await running.stop();
      await whileDown?.();
      await open();
    },
    async dispose() {
      await client?.close().catch(() => undefined);
      for (const name of workspaces.keys()) await call('workspaces.delete', { workspace: name }).catch(() => undefined);
      await running.stop();
      await removeOwnedBy(dataDir);
      await env.close();
      dir.remove();
    },
  };
  return fleet;
}
