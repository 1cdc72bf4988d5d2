import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startAgentContainer,
  testAgentCliDir,
  testBridgeNetwork,
  type AgentContainer,
  type TestNetwork,
} from '../../../../test/helpers/agent-cli';
import { startModelApi, type ModelApi } from '../../../../test/helpers/model-api';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { waitFor } from '../../../../test/helpers/wait';
import { bundleWorkerScripts } from '../../../../test/helpers/worker-scripts';
import { WORKER_NODE, type ExecResult } from '../../docker';
import { SessionsConfig } from '../config';
import { launchScript } from '../../agents';
import { buildLaunchCommand } from '../../agents/claude/launch';
import { installWorkerTools } from '../launch/worker-tools';
import { freePort } from '../../../../test/helpers/free-port';
import { testDrivers } from '../../../../test/helpers/agent-drivers';

/**
 * The hook relay in a real worker container, with the pinned real CLI against the model stand-in
 * and a real nats-server on the bridge gateway: the agent's hooks reach NATS through the relay in
 * order, a PermissionRequest is answered by core's reply, a killed relay comes back and says so,
 * a relay with no loop is started again by the next command hook, and a restarted nats-server (same
 * port) is reconnected to. SessionStart's command hook is a shell script: it starts no Node (it works
 * with the helpers' Node unusable) and the relay writes the session's inbox address.
 */
const WS = 'w-relay';
const SESSION = 'sess-relay-1';

interface Published {
  sessionId?: string;
  at?: string;
  event?: { hook_event_name: string };
  relay?: { crashes?: number; probe?: boolean };
}

/** nats-server with core's admin and the workspace's hook user (publish hooks + permissions, replies). */
function natsServer(dir: string, host: string, port: number, hookPass = 'pw'): Promise<ChildProcess> {
  const conf = join(dir, 'nats.conf');
  writeFileSync(
    conf,
    'authorization { users: [ { user: "admin", password: "admin-pw" }, ' +
      `{ user: "hooks-${WS}", password: "${hookPass}", permissions: { publish: ["nexus.hooks.${WS}", ` +
      `"nexus.permissions.${WS}"], subscribe: ["nexus.permission-replies.${WS}.>"] } } ] }\n`,
  );
  const child = spawn('nats-server', ['-a', host, '-p', String(port), '-c', conf], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer): void => {
      out += d.toString();
      if (out.includes('Server is ready')) resolve(child);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`nats-server exited (${code}): ${out}`)));
  });
}

/** The runtime's exec for one container: `docker exec -i`, stdin written whole (bytes), as the worker user (or root). */
function dockerExec(
  containerId: string,
  argv: string[],
  opts: { stdin?: string | Buffer; root?: boolean } = {},
): Promise<ExecResult> {
  return new Promise((resolve) => {
    const child = spawn('docker', ['exec', '-i', ...(opts.root ? ['-u', '0'] : []), containerId, ...argv]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ exitCode: code ?? -1, stdout, stderr, cut: { stdout: 0, stderr: 0 } }));
    child.stdin.end(opts.stdin ?? '');
  });
}

describe('the hook relay in a worker container (real CLI, real NATS)', () => {
  let net: TestNetwork;
  let api: ModelApi;
  let box: AgentContainer;
  let nats: ChildProcess;
  let port: number;
  let nc: NatsConnection;
  const dir = tempDir('nexus-relay-test-');
  const seen: Published[] = [];
  const config = SessionsConfig.parse({ permissionMode: 'default' });
  const events = (): string[] =>
    seen.filter((m) => m.sessionId === SESSION).map((m) => m.event?.hook_event_name ?? '?');

  async function watch(): Promise<void> {
    nc = await connect({
      servers: `nats://${net.gateway}:${port}`,
      user: 'admin',
      pass: 'admin-pw',
      maxReconnectAttempts: -1,
      reconnectTimeWait: 200,
    });
    const sub = nc.subscribe(`nexus.hooks.${WS}`);
    void (async () => {
      // Answered as core answers each hook event (the relay sends again what gets no answer).
      for await (const m of sub) {
        seen.push(m.json<Published>());
        m.respond();
      }
    })();
    // Core's side of a PermissionRequest: allow.
    const asks = nc.subscribe(`nexus.permissions.${WS}`);
    void (async () => {
      for await (const m of asks) m.respond(JSON.stringify({ behavior: 'allow' }));
    })();
    await nc.flush();
  }

  beforeAll(async () => {
    net = await testBridgeNetwork('nexus-relay-test');
    port = await freePort(net.gateway);
    nats = await natsServer(dir.path, net.gateway, port);
    await watch();
    api = await startModelApi({ host: net.gateway });
    box = await startAgentContainer({ network: net.name, cliDir: testAgentCliDir(), worktrees: ['one'] });
    // Injected first: the seeded settings carry the apiKeyHelper only while a key is there.
    await box.sh('umask 077 && cat > /tmp/relay-key', `sk-ant-api03-${randomUUID()}`);
    const scripts = await bundleWorkerScripts(dir.path);
    await installWorkerTools(
      { exec: (_ws, argv, o) => dockerExec(box.id, argv, o) },
      config,
      { id: WS, name: 'relay', containerId: box.id },
      { hookScript: scripts.hook, inboxSendScript: scripts.inboxSend, relayScript: scripts.relay },
      { url: `nats://${net.gateway}:${port}`, user: `hooks-${WS}`, pass: 'pw', permissionWaitMs: 20_000 },
      { drivers: testDrivers(config).all },
    );
  }, 240_000);
  afterAll(async () => {
    await nc?.close();
    await box?.remove();
    await api?.close();
    nats?.kill();
    await net?.remove();
    dir.remove();
  });

  /** The session's event names published since `from`, once its turn has ended (Stop). */
  async function turnEvents(from: number, timeoutMs: number): Promise<(string | undefined)[]> {
    const mine = (): Published[] => seen.slice(from).filter((m) => m.sessionId === SESSION);
    await waitFor(() => mine().some((m) => m.event?.hook_event_name === 'Stop'), "the turn's Stop on NATS", timeoutMs);
    return mine().map((m) => m.event?.hook_event_name);
  }

  const relayPid = async (): Promise<string> => (await box.sh('cat /tmp/nexus-tools/relay.pid')).trim();

  /** Our SessionStart command, as the agent's settings hold it. */
  async function sessionStartCommand(): Promise<string> {
    const settings = JSON.parse(await box.sh('cat "$HOME/.claude/settings.json"')) as {
      hooks: Record<string, { hooks: { type: string; command?: string }[] }[]>;
    };
    const ours = settings.hooks.SessionStart?.flatMap((m) => m.hooks).find((h) => h.command?.includes('nexus-hook'));
    if (!ours?.command) throw new Error('no SessionStart hook of ours in the settings');
    return ours.command;
  }

  it("carries the real agent's hooks in order, one relay process, and answers its permission dialog with core's decision", async () => {
    const agentSessionId = randomUUID();
    const launch = buildLaunchCommand(config, {
      workspace: 'relay',
      name: 'one',
      sessionId: SESSION,
      workspaceId: WS,
      agentSessionId,
      initialMessage: 'write the file',
      // The stand-in in the gateway's place (the gateway has its own tests): the key helper's file holds a key.
      agent: { gateway: { url: api.url, keyFile: '/tmp/relay-key' } },
    });
    // The script the product writes for a session (its environment, the token's descriptor, the exec).
    await box.sh('umask 077 && cat > /tmp/launch-one.sh', launchScript('/workspace/.nexus-worktrees/one', launch));
    api.reply(
      { toolUse: { name: 'Bash', input: { command: 'echo relayed > /tmp/relayed.txt', description: 'write' } } },
      { text: 'Finished.' },
    );
    const pid = await relayPid();
    await box.sh(
      `tmux new-session -d -s nexus -n home -x 200 -y 50; tmux new-window -d -t nexus: -n one 'exec sh /tmp/launch-one.sh'`,
    );
    await waitFor(() => events().includes('Stop'), 'the Stop event on NATS', 90_000);
    expect(events()).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'PreToolUse',
      'PermissionRequest',
      'PostToolUse',
      'Stop',
    ]);
    const stamps = seen.filter((m) => m.sessionId === SESSION).map((m) => m.at ?? '');
    expect([...stamps].sort()).toEqual(stamps);
    expect((await box.sh('cat /tmp/relayed.txt')).trim()).toBe('relayed');
    expect(await box.pane('one')).toContain('Allowed by PermissionRequest hook');
    // The same relay carried them all: it was not restarted, and no new start was announced.
    expect(await relayPid()).toBe(pid);
    expect(seen.filter((m) => m.relay && !m.relay.probe).map((m) => m.relay?.crashes)).toEqual([0]);
    // The agent's inbox address, from its SessionStart's environment, written by the relay for nexus-inbox-send.
    const inbox = JSON.parse(await box.sh(`cat /tmp/nexus-sessions/${SESSION}/inbox.json`)) as Record<string, unknown>;
    expect(inbox).toMatchObject({ socket: expect.stringMatching(/^\//), agentSessionId });
    expect((await box.sh(`stat -c %a /tmp/nexus-sessions/${SESSION}/inbox.json`)).trim()).toBe('600');
  }, 120_000);

  it("delivers SessionStart and writes the inbox address without starting Node: it works with the helpers' Node unusable", async () => {
    const command = await sessionStartCommand();
    // The running relay keeps running; nothing can start the helpers' Node any more.
    expect((await dockerExec(box.id, ['chmod', '0700', WORKER_NODE], { root: true })).exitCode).toBe(0);
    try {
      const from = seen.length;
      const session = 'sess-relay-nonode';
      const r = await box.exec(
        [
          'env',
          `NEXUS_SESSION_ID=${session}`,
          `NEXUS_WORKSPACE_ID=${WS}`,
          'CLAUDE_CODE_MESSAGING_SOCKET=/tmp/claude-agent/inbox.sock',
          'CLAUDE_CODE_MESSAGING_TOKEN=tok-123',
          'sh',
          '-c',
          command,
        ],
        { stdin: JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'conv-nonode', source: 'startup' }) },
      );
      expect(r).toMatchObject({ exitCode: 0, stdout: '' });
      await waitFor(
        () => seen.slice(from).some((m) => m.sessionId === session && m.event?.hook_event_name === 'SessionStart'),
        'the SessionStart event',
        10_000,
      );
      expect(JSON.parse(await box.sh(`cat /tmp/nexus-sessions/${session}/inbox.json`))).toEqual({
        socket: '/tmp/claude-agent/inbox.sock',
        token: 'tok-123',
        agentSessionId: 'conv-nonode',
      });
    } finally {
      await dockerExec(box.id, ['chmod', '0755', WORKER_NODE], { root: true });
    }
  }, 60_000);

  it('a killed relay is started again, says it died, and carries the next prompt', async () => {
    const before = await relayPid();
    await box.sh(`kill -9 ${before}`);
    await waitFor(() => seen.some((m) => m.relay?.crashes === 1), "the restarted relay's notice", 20_000);
    expect(await relayPid()).not.toBe(before);
    const from = seen.length;
    api.reply({ text: 'Second answer.' });
    await box.sh("tmux send-keys -t nexus:one -l 'and again'; sleep 0.5; tmux send-keys -t nexus:one Enter");
    expect(await turnEvents(from, 60_000)).toEqual(['UserPromptSubmit', 'Stop']);
  }, 90_000);

  it('reconnects to a nats-server restarted on the same port and delivers what came meanwhile', async () => {
    nats.kill('SIGKILL');
    await new Promise((r) => nats.once('exit', r));
    api.reply({ text: 'Third answer.' });
    const from = seen.length;
    // The prompt is typed while the server is down; its events wait in the relay.
    await box.sh("tmux send-keys -t nexus:one -l 'while down'; sleep 0.5; tmux send-keys -t nexus:one Enter");
    await waitFor(async () => (await box.pane('one')).includes('Third answer.'), 'the answer on the pane', 60_000);
    nats = await natsServer(dir.path, net.gateway, port);
    expect(await turnEvents(from, 30_000)).toEqual(['UserPromptSubmit', 'Stop']);
  }, 120_000);

  it('keeps trying when refused and connects once its credentials file names the new password', async () => {
    // What a core restart does: its server comes back with a new hook password, and the file is
    // rewritten only when core next installs the tools.
    nats.kill('SIGKILL');
    await new Promise((r) => nats.once('exit', r));
    nats = await natsServer(dir.path, net.gateway, port, 'pw2');
    await new Promise((r) => setTimeout(r, 2000)); // several refused reconnects
    const file = JSON.stringify({ url: `nats://${net.gateway}:${port}`, user: `hooks-${WS}`, pass: 'pw2' });
    await box.sh('umask 077 && cat > /tmp/nexus-tools/hook-nats.json', file);
    api.reply({ text: 'Fourth answer.' });
    const from = seen.length;
    await box.sh(
      "tmux send-keys -t nexus:one -l 'after the new password'; sleep 0.5; tmux send-keys -t nexus:one Enter",
    );
    expect(await turnEvents(from, 60_000)).toEqual(['UserPromptSubmit', 'Stop']);
  }, 120_000);

  it('with its loop gone, the next command hook delivers its event itself (the Node hook) and starts the relay again', async () => {
    await box.sh('kill -9 $(cat /tmp/nexus-tools/relay-loop.pid) $(cat /tmp/nexus-tools/relay.pid)');
    const from = seen.length;
    const hook = await box.sh(
      `NEXUS_SESSION_ID=${SESSION} NEXUS_WORKSPACE_ID=${WS} ${await sessionStartCommand()}`,
      JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'x', source: 'resume' }),
    );
    expect(hook).toBe('');
    await waitFor(
      () => seen.slice(from).some((m) => m.event?.hook_event_name === 'SessionStart'),
      'the SessionStart event',
      20_000,
    );
    await waitFor(
      async () => (await box.exec(['sh', '-c', 'kill -0 $(cat /tmp/nexus-tools/relay.pid)'])).exitCode === 0,
      'a relay again',
      20_000,
    );
  }, 60_000);
});
