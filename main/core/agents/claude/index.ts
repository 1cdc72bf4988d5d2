import { NexusError } from '../../../../shared/errors';
import type { AgentDriver, AgentDriverDeps } from '../driver';
import { AGENT_CLI_MOUNT, AgentCli } from './cli';
import { claudeCredential, HAS_CREDENTIAL_TEST } from './credential';
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
    capabilities: { unansweredPermission: 'stays_in_terminal', messageReceipts: true },
    baseUrl: deps.config.baseUrl ?? null,
    cli: {
      info: () => cli.info(),
      locate: async (cpu, progress) => (await cli.ensure(cpu, progress)).binaryDir,
      mountTarget: AGENT_CLI_MOUNT,
      pathEntries: [AGENT_CLI_MOUNT],
      remote: true,
    },
    credential: claudeCredential,
    usesResidentMcp: realCli,
    async ready(exec, workspace) {
      if (!realCli) return;
      const r = await exec(['sh', '-c', `command -v claude >/dev/null || exit 4; ${HAS_CREDENTIAL_TEST} || exit 3`]);
      if (r.exitCode === 4)
        throw new NexusError(
          'unavailable',
          `Workspace ${workspace} has no agent CLI (claude): Nexus could not get it when the workspace was ` +
            `created (see its reason). Fix that (npm and the registry, or NEXUS_AGENT_CLI_DIR) and create the ` +
            `workspace again.`,
        );
      if (r.exitCode === 3)
        throw new NexusError(
          'conflict',
          `Workspace ${workspace} has no agent credential. Add an Anthropic API key or a Claude OAuth token ` +
            `(claude setup-token) under Settings → Secrets, pick it in Settings → Agent (or name it when creating ` +
            `the workspace), then restart the workspace.`,
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
        agent: { baseUrl: deps.config.baseUrl, bypass: input.bypass },
      }),
    // `--mcp-config=<file>`; the path is the session's run file (sessions/launch/session-runs.ts runFiles).
    mcpConfig: ({ stateDir, servers }) =>
      Object.keys(servers).length === 0
        ? null
        : { file: `${stateDir}/mcp.json`, content: `${JSON.stringify({ mcpServers: servers }, null, 2)}\n` },
    containerSetup(input) {
      const { mode } = permissionModeFor({
        configured: deps.launch.permissionMode,
        baseUrl: deps.config.baseUrl,
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
