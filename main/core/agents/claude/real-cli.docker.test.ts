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
import { credentialFile, credentialInjection } from '../credential';
import { claudeCredential } from './credential';
import { seedFirstRun } from './first-run';

/**
 * The pinned real CLI in the real worker image, on a user-defined bridge network, against the model
 * stand-in on the bridge gateway: first-run state seeded, a canary credential through the vault's
 * path (stdin -> tmpfs file -> apiKeyHelper or an inherited fd), started in tmux as uid 1000.
 */
const API_KEY = `sk-ant-api03-canary-${randomUUID()}`;
const OAUTH_TOKEN = `sk-ant-oat01-canary-${randomUUID()}`;
const PROMPT = `Fix it's "quoted" $(whoami) \`id\` -- --help\nsecond line: ünïcødé 漢字 🚀\n\n  indented`;

describe('the real agent CLI in a worker', () => {
  let net: TestNetwork;
  let api: ModelApi;
  let box: AgentContainer;

  beforeAll(async () => {
    net = await testBridgeNetwork('nexus-agent-test');
    api = await startModelApi({ host: net.gateway });
    box = await startAgentContainer({ network: net.name, cliDir: testAgentCliDir(), worktrees: ['one', 'two'] });
  }, 240_000);
  afterAll(async () => {
    await box?.remove();
    await api?.close();
    await net?.remove();
  });

  async function inject(credential: {
    kind: 'anthropic_api_key' | 'claude_oauth_token';
    value: string;
  }): Promise<void> {
    const { cmd, stdin } = credentialInjection([credentialFile(claudeCredential, credential.kind, credential.value)]);
    const r = await box.exec(cmd, { stdin });
    expect(r.exitCode).toBe(0);
  }

  /** Seeds first-run state and starts `claude` the way sessions do: a launch script in a tmux window. */
  async function launch(name: string, prompt: string): Promise<void> {
    await seedFirstRun((cmd, o) => box.exec(cmd, o), { repoDir: '/workspace' });
    const config = SessionsConfig.parse({ permissionMode: 'default' });
    const cmd = buildLaunchCommand(config, {
      workspace: 'ws',
      name,
      sessionId: randomUUID(),
      workspaceId: 'w1',
      agentSessionId: randomUUID(),
      initialMessage: prompt,
      agent: { baseUrl: api.url },
    });
    // The script the product writes for a session (its environment, the token's descriptor, the exec).
    await box.sh(`umask 077 && cat > /tmp/launch-${name}.sh`, launchScript(`/workspace/.nexus-worktrees/${name}`, cmd));
    await box.sh(
      `tmux has-session -t =nexus 2>/dev/null || tmux new-session -d -s nexus -n home -x 200 -y 50; tmux new-window -d -t nexus: -n ${name} 'exec sh /tmp/launch-${name}.sh'`,
    );
  }

  it('starts unattended with an API key: the prompt is the first user turn, byte-exact, and the key reached the API', async () => {
    await inject({ kind: 'anthropic_api_key', value: API_KEY });
    api.reply({ text: 'Done with the first task.' });
    await launch('one', PROMPT);
    const first = await api.waitForRequest((r) => r.kind === 'turn', 90_000);
    expect(userTexts(first.body.messages ?? [])[0]).toBe(PROMPT);
    expect(first.auth).toBe('x-api-key');
    expect(api.sawCredential(API_KEY)).toBe(true);
    const pane = await waitFor(async () => {
      const p = await box.pane('one');
      return p.includes('Done with the first task.') ? p : null;
    }, 'the answer on the pane');
    expect(pane).not.toMatch(/trust|onboarding|theme|Use this API key|Bypass Permissions mode/i);
  }, 120_000);

  it('starts unattended with a Claude OAuth token read from a file descriptor', async () => {
    await inject({ kind: 'claude_oauth_token', value: OAUTH_TOKEN });
    const before = api.turns().length;
    await launch('two', 'second session, signed in with a token');
    const first = await api.waitForRequest((r) => r.kind === 'turn' && r.seq >= before && r.auth === 'bearer', 90_000);
    expect(userTexts(first.body.messages ?? [])[0]).toBe('second session, signed in with a token');
    expect(api.sawCredential(OAUTH_TOKEN)).toBe(true);
    await waitFor(async () => (await box.pane('two')).includes('OK.'), 'the answer on the pane');
    expect(await box.pane('two')).not.toMatch(/trust|onboarding|theme|log ?in|sign in/i);
  }, 120_000);

  it('never shows either credential in docker inspect, a process, the pane or the seeded files', async () => {
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
  });
});
