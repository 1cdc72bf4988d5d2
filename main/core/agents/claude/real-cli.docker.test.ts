import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startAgentContainer,
  testAgentCliDir,
  testBridgeNetwork,
  type AgentContainer,
  type TestNetwork,
} from '../../../../test/helpers/agent-cli';
import { inspectJson } from '../../../../test/helpers/docker';
import { startModelApi, userTexts, type ModelApi } from '../../../../test/helpers/model-api';
import { waitFor } from '../../../../test/helpers/wait';
import { SessionsConfig } from '../../sessions/config';
import { launchScript } from '../launch';
import { buildLaunchCommand } from './launch';
import { createLogger } from '../../log';
import { GatewayServer } from '../../gateway/gateway-server';
import { Redactor } from '../../redact';
import { anthropicHeaders } from './credential';
import { seedFirstRun } from './first-run';

/**
 * The pinned real CLI in the real worker image, on a user-defined bridge network, signed in the way every session is:
 * its settings' `apiKeyHelper` prints the session's gateway credential from its run file, its model endpoint is
 * Nexus's gateway (the product's GatewayServer, here on the bridge gateway), and the gateway signs each request with
 * the real credential (an API key, or a Claude OAuth token) toward the model stand-in. Started in tmux as uid 1000.
 */
const API_KEY = `sk-ant-api03-canary-${randomUUID()}`;
const OAUTH_TOKEN = `sk-ant-oat01-canary-${randomUUID()}`;
const SESSION_CREDENTIAL = `nxg_${randomUUID().replace(/-/g, '')}`;
const PROMPT = `Fix it's "quoted" $(whoami) \`id\` -- --help\nsecond line: ünïcødé 漢字 🚀\n\n  indented`;

describe('the real agent CLI in a worker, through the model gateway', () => {
  let net: TestNetwork;
  let api: ModelApi;
  let box: AgentContainer;
  let gateway: GatewayServer;
  let gatewayUrl: string;
  /** The real credential the gateway signs with (the vault's, in core). */
  let real: { kind: 'anthropic_api_key' | 'claude_oauth_token'; value: string };

  beforeAll(async () => {
    net = await testBridgeNetwork('nexus-agent-test');
    api = await startModelApi({ host: net.gateway });
    gateway = new GatewayServer(
      {
        verify: (c) => (c === SESSION_CREDENTIAL ? { sessionId: 's1', workspaceId: 'w1', agent: 'claude' } : null),
        upstream: () =>
          Promise.resolve({
            wire: 'anthropic-messages' as const,
            base: api.url,
            sign: (incoming: Record<string, string | string[] | undefined>) =>
              anthropicHeaders(real.kind, real.value, incoming),
          }),
        refusal: () => null,
        counted: () => Promise.resolve(),
      },
      createLogger({ redactor: new Redactor() }),
    );
    const at = await gateway.listen(net.gateway, 0);
    gatewayUrl = `http://${at.host}:${at.port}/claude`;
    box = await startAgentContainer({ network: net.name, cliDir: testAgentCliDir(), worktrees: ['one', 'two'] });
  }, 240_000);
  afterAll(async () => {
    await box?.remove();
    await gateway?.close();
    await api?.close();
    await net?.remove();
  });

  /** Seeds first-run state and starts `claude` the way sessions do: a launch script in a tmux window. */
  async function launch(name: string, prompt: string): Promise<void> {
    await seedFirstRun((cmd, o) => box.exec(cmd, o), { repoDir: '/workspace' });
    const keyFile = `/tmp/nexus-sessions/${name}/gateway-key`;
    await box.sh(`mkdir -p /tmp/nexus-sessions/${name} && umask 077 && cat > ${keyFile}`, SESSION_CREDENTIAL);
    const config = SessionsConfig.parse({ permissionMode: 'default' });
    const cmd = buildLaunchCommand(config, {
      workspace: 'ws',
      name,
      sessionId: randomUUID(),
      workspaceId: 'w1',
      agentSessionId: randomUUID(),
      initialMessage: prompt,
      agent: { gateway: { url: gatewayUrl, keyFile } },
    });
    // The script the product writes for a session (its environment, the exec).
    await box.sh(`umask 077 && cat > /tmp/launch-${name}.sh`, launchScript(`/workspace/.nexus-worktrees/${name}`, cmd));
    await box.sh(
      `tmux has-session -t =nexus 2>/dev/null || tmux new-session -d -s nexus -n home -x 200 -y 50; tmux new-window -d -t nexus: -n ${name} 'exec sh /tmp/launch-${name}.sh'`,
    );
  }

  it('starts unattended through the gateway: the prompt is the first user turn, byte-exact, signed with the API key', async () => {
    real = { kind: 'anthropic_api_key', value: API_KEY };
    api.reply({ text: 'Done with the first task.' });
    await launch('one', PROMPT);
    const first = await api.waitForRequest((r) => r.kind === 'turn', 90_000);
    expect(userTexts(first.body.messages ?? [])[0]).toBe(PROMPT);
    // The gateway swapped the session's credential for the real key.
    expect(first.auth).toBe('x-api-key');
    expect(api.sawCredential(API_KEY)).toBe(true);
    expect(api.sawCredential(SESSION_CREDENTIAL)).toBe(false);
    const pane = await waitFor(async () => {
      const p = await box.pane('one');
      return p.includes('Done with the first task.') ? p : null;
    }, 'the answer on the pane');
    expect(pane).not.toMatch(/trust|onboarding|theme|Use this API key|Bypass Permissions mode/i);
  }, 120_000);

  it('signs with a Claude OAuth token as a Bearer with the OAuth beta, the CLI none the wiser', async () => {
    real = { kind: 'claude_oauth_token', value: OAUTH_TOKEN };
    const before = api.turns().length;
    await launch('two', 'second session, signed in with a token');
    const first = await api.waitForRequest((r) => r.kind === 'turn' && r.seq >= before && r.auth === 'bearer', 90_000);
    expect(userTexts(first.body.messages ?? [])[0]).toBe('second session, signed in with a token');
    expect(api.sawCredential(OAUTH_TOKEN)).toBe(true);
    expect(first.headers['anthropic-beta']?.split(',')).toContain('oauth-2025-04-20');
    await waitFor(async () => (await box.pane('two')).includes('OK.'), 'the answer on the pane');
    expect(await box.pane('two')).not.toMatch(/trust|onboarding|theme|log ?in|sign in/i);
  }, 120_000);

  it('holds no real credential anywhere in the container: inspect, processes, panes, files', async () => {
    const leaks = (text: string) => [API_KEY, OAUTH_TOKEN].filter((c) => text.includes(c)).length;
    expect(leaks(inspectJson(box.id))).toBe(0);
    expect(leaks(await box.pane('one'))).toBe(0);
    expect(leaks(await box.pane('two'))).toBe(0);
    // Every process's arguments and environment, and what the CLI keeps in its home.
    const procs = await box.sh(
      'for p in /proc/[0-9]*; do cat $p/cmdline $p/environ 2>/dev/null; echo; done; cat ~/.claude.json ~/.claude/settings.json',
    );
    expect(procs).toContain('claude');
    expect(leaks(procs)).toBe(0);
    // Every file where anything in the container can write, the /run/nexus tmpfs included.
    const files = await box.sh(
      `grep -rlF -e '${API_KEY}' -e '${OAUTH_TOKEN}' /home /tmp /run /workspace /var/tmp /etc 2>/dev/null; true`,
    );
    expect(files).toBe('');
  }, 120_000);
});
