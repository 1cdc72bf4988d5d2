import { describe, expect, it } from 'vitest';
import { CoreConfig } from './core/config';
import { AGENT_KINDS } from './core/agents';
import { configFromEnv } from './env-config';

describe('configFromEnv', () => {
  it('maps the documented variables onto the core config', () => {
    const config = CoreConfig.parse(
      configFromEnv({
        NEXUS_DOCKER_SOCKET: '/tmp/d.sock',
        NEXUS_DOCKER_NETWORK: 'host',
        NEXUS_NATS_URL: 'nats://127.0.0.1:4222',
      }),
    );
    expect(config.docker).toMatchObject({ socketPath: '/tmp/d.sock', network: 'host' });
    expect(config.nats.url).toBe('nats://127.0.0.1:4222');
  });

  it('takes the agent command for sessions as a JSON array', () => {
    expect(
      CoreConfig.parse(configFromEnv({ NEXUS_AGENT_COMMAND: '["node","/opt/agent-fixture/agent-fixture.mjs"]' }))
        .sessions.agentCommand,
    ).toEqual(['node', '/opt/agent-fixture/agent-fixture.mjs']);
    expect(() => CoreConfig.parse(configFromEnv({ NEXUS_AGENT_COMMAND: '"claude"' }))).toThrow();
  });

  it('turns nexus-mcp off with NEXUS_MCP_ENABLED=0, and leaves it on otherwise', () => {
    expect(CoreConfig.parse(configFromEnv({ NEXUS_MCP_ENABLED: '0' })).sessions.nexusMcpEnabled).toBe(false);
    expect(CoreConfig.parse(configFromEnv({ NEXUS_MCP_ENABLED: '1' })).sessions.nexusMcpEnabled).toBe(true);
    expect(CoreConfig.parse(configFromEnv({})).sessions.nexusMcpEnabled).toBe(true);
  });

  it('serves Claude Code sessions from one resident nexus-mcp per container unless NEXUS_MCP_RESIDENT=0', () => {
    expect(CoreConfig.parse(configFromEnv({ NEXUS_MCP_RESIDENT: '0' })).sessions.residentMcp).toBe(false);
    expect(CoreConfig.parse(configFromEnv({})).sessions.residentMcp).toBe(true);
  });

  it("takes each agent kind's CLI directory and model base URL (the default kind also under NEXUS_AGENT_*)", () => {
    const [first, second] = AGENT_KINDS as [string, string];
    const upper = second.toUpperCase();
    const config = CoreConfig.parse(
      configFromEnv({
        NEXUS_AGENT_CLI_DIR: '/var/cache/nexus-agent-cli/2.1.332',
        NEXUS_AGENT_BASE_URL: 'http://10.0.0.1:8080',
        [`NEXUS_${upper}_CLI_DIR`]: '/opt/second',
        [`NEXUS_${upper}_BASE_URL`]: 'http://10.0.0.2:8080',
      }),
    );
    expect(config.agent.kinds).toEqual({
      [first]: { cliDir: '/var/cache/nexus-agent-cli/2.1.332', baseUrl: 'http://10.0.0.1:8080' },
      [second]: { cliDir: '/opt/second', baseUrl: 'http://10.0.0.2:8080' },
    });
    expect(() => CoreConfig.parse(configFromEnv({ NEXUS_AGENT_BASE_URL: 'not a url' }))).toThrow();
  });

  it('takes how long a permission request waits for the operator, and refuses a wait that is not a number', () => {
    expect(CoreConfig.parse(configFromEnv({ NEXUS_PERMISSION_WAIT_MS: '30000' })).sessions.permissionWaitMs).toBe(
      30_000,
    );
    expect(() => CoreConfig.parse(configFromEnv({ NEXUS_PERMISSION_WAIT_MS: 'soon' }))).toThrow();
  });

  it('leaves the defaults alone when nothing is set', () => {
    expect(CoreConfig.parse(configFromEnv({}))).toEqual(CoreConfig.parse({}));
  });
});
