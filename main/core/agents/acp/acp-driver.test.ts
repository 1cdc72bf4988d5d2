import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp-dir';
import type { AgentLaunchInput } from '../driver';
import { acpDriver, acpMcpServers } from './acp-driver';
import type { AcpKindDeclaration } from './declaration';

/** An ACP kind's driver from its declaration: the bridge's command line, the agent's environment, its MCP servers. */
const decl: AcpKindDeclaration = {
  kind: 'acp-test',
  label: 'ACP Test',
  speaker: 'Tester',
  cli: {
    spec: {
      kind: 'acp-test',
      label: 'ACP Test',
      package: 'acp-test',
      version: '1.0.0',
      entryPackage: 'acp-test',
      entry: 'bin/t',
      mount: 'prefix',
    },
    mountTarget: '/opt/nexus/acp-test',
    argv: ['/opt/nexus/acp-test/bin/t', '--acp'],
  },
  model: {
    wire: 'openai-chat',
    upstream: 'https://api.example.com',
    secretKinds: [{ kind: 'openai_api_key', label: 'OpenAI API key' }],
    describe: 'a key',
    headers: (_k, v) => ({ authorization: `Bearer ${v}` }),
  },
  env: ({ gatewayUrl, model }) => ({ TEST_BASE: `${gatewayUrl}/v1`, ...(model ? { TEST_MODEL: model } : {}) }),
  keyVar: 'TEST_KEY',
  askMode: 'default',
  mcpTransports: ['stdio'],
  sessionStore: '.t',
  userSettings: { file: '.t/settings.json', merge: { memory: { auto: false } } },
  credentialFiles: [],
};
const driver = acpDriver(decl)({
  dataDir: '/tmp',
  config: { baseUrl: 'http://stand-in:1' },
  launch: { agentArgs: [], remoteControl: false },
});
const input = (over: Partial<AgentLaunchInput> = {}): AgentLaunchInput => ({
  workspace: 'w',
  workspaceId: 'ws-1',
  name: 'n',
  sessionId: 's-1',
  agentSessionId: 'a-1',
  conversationId: null,
  resume: false,
  bypass: false,
  gateway: { url: 'http://gw:4782/acp-test', keyFile: '/tmp/nexus-sessions/s-1/gateway-key' },
  hookHandler: () => ({}),
  permissionWaitMs: 1000,
  worker: { toolsDir: '/tmp/nexus-tools', natsFile: '/tmp/nexus-tools/hook-nats.json' },
  ...over,
});

describe('acpDriver', () => {
  it('runs the bridge in the window with the agent after --, the initial message its own argument, byte-exact', () => {
    const typed = '-- "$(id)" \n !x';
    const cmd = driver.plan(input({ initialMessage: typed })).command('/tmp/nexus-sessions/s-1/acp-mcp.json');
    expect(cmd.argv.slice(1)).toEqual([
      '/tmp/nexus-tools/nexus-acp-bridge.cjs',
      '--nats',
      '/tmp/nexus-tools/hook-nats.json',
      '--workspace',
      'ws-1',
      '--session',
      's-1',
      '--mcp',
      '/tmp/nexus-sessions/s-1/acp-mcp.json',
      '--initial',
      typed,
      '--',
      '/opt/nexus/acp-test/bin/t',
      '--acp',
    ]);
    expect(cmd.env).toMatchObject({ TEST_BASE: 'http://gw:4782/acp-test/v1', TEST_MODEL: 'nexus-model' });
    // The key is read at launch from the session's gateway credential file: never in the script or its env.
    expect(cmd.preludeLines).toEqual(['IFS= read -r TEST_KEY <"$NEXUS_GATEWAY_KEY_FILE"', 'export TEST_KEY']);
    expect(JSON.stringify(cmd)).not.toMatch(/nxg_/);
  });

  it('sends no initial message on a relaunch and refuses a prompt no argument can carry', () => {
    expect(driver.plan(input({ resume: true, initialMessage: 'again' })).command().argv).not.toContain('--initial');
    expect(() => driver.plan(input({ initialMessage: 'a\0b' }))).toThrow(/NUL/);
    expect(driver.capabilities).toEqual({ unansweredPermission: 'denied', messageReceipts: false, structured: true });
  });

  it("writes the session's servers in ACP's form: HTTP left out for a stdio-only kind, stdio fronted for an HTTP-only one", () => {
    const servers = {
      nexus: { command: '/opt/nexus/bin/nexus-mcp', args: [], env: { NEXUS_RUN_ID: 'r1' } },
      'nexus-delegated': { type: 'http', url: 'http://fleet/mcp', headers: { authorization: 'Bearer x' } },
    };
    expect(acpMcpServers(servers, ['stdio'])).toEqual([
      { name: 'nexus', command: '/opt/nexus/bin/nexus-mcp', args: [], env: [{ name: 'NEXUS_RUN_ID', value: 'r1' }] },
    ]);
    expect(acpMcpServers(servers, ['stdio', 'http'])[1]).toEqual({
      type: 'http',
      name: 'nexus-delegated',
      url: 'http://fleet/mcp',
      headers: [{ name: 'authorization', value: 'Bearer x' }],
    });
    // A kind that takes only HTTP (Copilot CLI): the stdio server goes marked for the bridge's HTTP front.
    expect(acpMcpServers(servers, ['http'])).toEqual([
      {
        name: 'nexus',
        command: '/opt/nexus/bin/nexus-mcp',
        args: [],
        env: [{ name: 'NEXUS_RUN_ID', value: 'r1' }],
        front: 'http',
      },
      {
        type: 'http',
        name: 'nexus-delegated',
        url: 'http://fleet/mcp',
        headers: [{ name: 'authorization', value: 'Bearer x' }],
      },
    ]);
    const file = driver.mcpConfig({ stateDir: '/s', worktree: '/w', servers, trusted: [], gateway: null });
    expect(file?.file).toBe('/s/acp-mcp.json');
  });

  it("merges its user settings into the agent's file, keeping the operator's keys", () => {
    const home = tempDir('nexus-acp-home-');
    try {
      mkdirSync(join(home.path, '.t'));
      writeFileSync(join(home.path, '.t/settings.json'), JSON.stringify({ theme: 'dark', memory: { keep: 1 } }));
      const setup = driver.containerSetup!({
        repoDir: '/r',
        bypass: false,
        hook: () => ({}),
        marker: 'm',
        permissionTimeoutSeconds: 1,
      });
      execFileSync(process.execPath, ['-e', setup.script], { input: setup.payload, env: { HOME: home.path } });
      expect(JSON.parse(readFileSync(join(home.path, '.t/settings.json'), 'utf8'))).toEqual({
        theme: 'dark',
        memory: { keep: 1, auto: false },
      });
    } finally {
      home.remove();
    }
  });
});
