import type { CoreConfigInput } from './core/config';
import { agentKindsFromEnv } from './core/agents';
import { keyFileFromEnv } from './core/vault';

/** Environment overrides for `nexus serve` (documented in README). Unset variables change nothing. */
export function configFromEnv(env: NodeJS.ProcessEnv): CoreConfigInput {
  const docker: Record<string, string> = {};
  if (env.NEXUS_DOCKER_SOCKET) docker.socketPath = env.NEXUS_DOCKER_SOCKET;
  if (env.NEXUS_DOCKER_NETWORK) docker.network = env.NEXUS_DOCKER_NETWORK;
  if (env.NEXUS_WORKER_IMAGE) docker.image = env.NEXUS_WORKER_IMAGE;
  if (env.NEXUS_WORKER_BASE_IMAGE) docker.baseImage = env.NEXUS_WORKER_BASE_IMAGE;
  const nats: Record<string, string> = {};
  if (env.NEXUS_NATS_URL) nats.url = env.NEXUS_NATS_URL;
  if (env.NEXUS_NATS_BINARY) nats.binary = env.NEXUS_NATS_BINARY;
  // sessions: a command in place of the default kind's CLI, as a JSON array (tests point it at the agent fixture)
  const agentCommand = env.NEXUS_AGENT_COMMAND ? (JSON.parse(env.NEXUS_AGENT_COMMAND) as string[]) : undefined;
  // agent.kinds: NEXUS_<KIND>_CLI_DIR / NEXUS_<KIND>_BASE_URL per agent kind (agents/registry.ts)
  const kinds = agentKindsFromEnv(env);
  // agent.startupTimeoutMs: how long a launched agent may take to start (tests on a loaded machine give it longer)
  const startupTimeoutMs = env.NEXUS_AGENT_STARTUP_TIMEOUT_MS
    ? { startupTimeoutMs: Number(env.NEXUS_AGENT_STARTUP_TIMEOUT_MS) }
    : undefined;
  // sessions.permissionWaitMs: how long a permission request waits for the operator (milliseconds)
  const permissionWaitMs = env.NEXUS_PERMISSION_WAIT_MS ? Number(env.NEXUS_PERMISSION_WAIT_MS) : undefined;
  const sessions = {
    ...(agentCommand ? { agentCommand } : {}),
    ...(permissionWaitMs !== undefined ? { permissionWaitMs } : {}),
    // NEXUS_MCP_ENABLED=0: sessions run without nexus-mcp (no platform tools), and say so
    ...(env.NEXUS_MCP_ENABLED === '0' ? { nexusMcpEnabled: false } : {}),
    // NEXUS_MCP_RESIDENT=0: a stdio nexus-mcp per session instead of one resident per container
    ...(env.NEXUS_MCP_RESIDENT === '0' ? { residentMcp: false } : {}),
  };
  // vault.keyFile: NEXUS_VAULT_KEY_FILE, or systemd's $CREDENTIALS_DIRECTORY/nexus-vault-key
  const keyFile = keyFileFromEnv(env);
  return {
    ...(keyFile ? { vault: { keyFile } } : {}),
    ...(Object.keys(docker).length ? { docker } : {}),
    ...(Object.keys(kinds).length || startupTimeoutMs ? { agent: { kinds, ...startupTimeoutMs } } : {}),
    ...(Object.keys(nats).length ? { nats } : {}),
    ...(Object.keys(sessions).length ? { sessions } : {}),
  };
}
