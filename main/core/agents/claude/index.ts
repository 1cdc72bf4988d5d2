import { NexusError } from '../../../../shared/errors';
import type { AgentDriver, AgentDriverDeps } from '../driver';
import { AGENT_CLI_MOUNT, AgentCli } from './cli';
import { anthropicHeaders, claudeCredential } from './credential';
import { permissionModeFor } from '../permission-mode';
import { FIRST_RUN_SCRIPT, firstRunPayload } from './first-run';
import { claudeHookEntries } from './hooks';
import { planLaunch } from './launch';

/**
 * Claude Code (`claude`), pinned in cli.ts. Its sessions: the PermissionRequest HTTP hook into the relay (the
 * container's user-level settings, first-run.ts), platform tools through the container's resident nexus-mcp over
 * HTTP, messages through Nexus's inbox socket with the agent's receipts, and a conversation id Nexus chooses.
 */
export function claudeDriver(deps: AgentDriverDeps): AgentDriver {
  const cli = new AgentCli({ dataDir: deps.dataDir, cliDir: deps.config.cliDir });
  // A custom agent command (the tests' fixture CLI) brings its own binary and credential, and speaks stdio MCP only.
  const realCli = deps.launch.agentCommand === undefined;
  return {
    kind: 'claude',
    label: 'Claude Code',
    speaker: 'Claude',
    capabilities: { unansweredPermission: 'stays_in_terminal', messageReceipts: true, structured: false },
    baseUrl: deps.config.baseUrl ?? null,
    cli: {
      info: () => cli.info(),
      locate: async (cpu, progress) => (await cli.ensure(cpu, progress)).binaryDir,
      mountTarget: AGENT_CLI_MOUNT,
      pathEntries: [AGENT_CLI_MOUNT],
    },
    credential: claudeCredential,
    gateway: {
      wire: 'anthropic-messages',
      upstream: deps.config.baseUrl ?? 'https://api.anthropic.com',
      headers: anthropicHeaders,
    },
    usesResidentMcp: realCli,
    needsCredential: realCli,
    async ready(exec, workspace) {
      if (!realCli) return;
      const r = await exec(['sh', '-c', 'command -v claude >/dev/null || exit 4']);
      if (r.exitCode === 4)
        throw new NexusError(
          'unavailable',
          `Workspace ${workspace} has no agent CLI (claude): Nexus could not get it when the workspace was ` +
            `created (see its reason). Fix that (npm and the registry, or NEXUS_AGENT_CLI_DIR) and create the ` +
            `workspace again.`,
        );
    },
    plan: (input) =>
      planLaunch(deps.launch, {
        workspace: input.workspace,
        workspaceId: input.workspaceId,
        name: input.name,
        sessionId: input.sessionId,
        agentSessionId: input.agentSessionId,
        initialMessage: input.initialMessage,
        resume: input.resume,
        agent: { gateway: input.gateway, bypass: input.bypass },
      }),
    // `--mcp-config=<file>`; the path is the session's run file (sessions/launch/session-runs.ts runFiles).
    mcpConfig: ({ stateDir, servers }) =>
      Object.keys(servers).length === 0
        ? null
        : { file: `${stateDir}/mcp.json`, content: `${JSON.stringify({ mcpServers: servers }, null, 2)}\n` },
    containerSetup(input) {
      const { mode } = permissionModeFor({
        configured: deps.launch.permissionMode,
        // Every session's model calls go through Nexus's gateway.
        customEndpoint: true,
        bypass: input.bypass,
      });
      const payload = firstRunPayload({
        repoDir: input.repoDir,
        bypass: mode === 'bypassPermissions',
        autoMode: mode === 'auto',
        hooks: { entries: claudeHookEntries(input), marker: input.marker },
      });
      return { script: FIRST_RUN_SCRIPT, payload: JSON.stringify(payload) };
    },
    afterRelaunch: () => ({ state: 'starting' }),
  };
}

/** Files where the CLI keeps a sign-in of its own (a login on the host it might be handed): reads of them are asked. */
claudeDriver.cliCredentialFiles = [String.raw`\.claude/\.credentials\.json`] as readonly string[];
/** The vault secret kinds that sign it in, known before a driver is built (the vault checks a secret's kind). */
claudeDriver.secretKinds = claudeCredential.secretKinds;
