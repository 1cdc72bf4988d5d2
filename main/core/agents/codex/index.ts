import { NexusError } from '../../../../shared/errors';
import type { AgentDriver, AgentDriverDeps } from '../driver';
import { CODEX_CLI_MOUNT, CodexCli } from './cli';
import { codexConfigFile, codexConfigToml, codexHooksJson, planCodexLaunch } from './launch';
import { codexCredential } from './credential';
import { queueForCodex } from './queue';

/**
 * Codex CLI (`codex`), pinned in cli.ts; what differs from Claude Code and why is docs/agents.md's table. Its
 * sessions: full access gated by Nexus in the PreToolUse command hook (fails closed), platform tools in config.toml
 * over stdio, messages through Codex's own durable queue (no receipt: `queued`), and the thread id Codex chooses,
 * learned from SessionStart. On a remote engine its ~400 MB install is copied at the first Codex session there.
 */
export function codexDriver(deps: AgentDriverDeps): AgentDriver {
  const cli = new CodexCli({ cliDir: deps.config.cliDir });
  return {
    kind: 'codex',
    label: 'Codex',
    speaker: 'Codex',
    capabilities: { unansweredPermission: 'denied', messageReceipts: false, structured: false },
    baseUrl: deps.config.baseUrl ?? null,
    cli: {
      info: () => cli.info(),
      locate: async (cpu) => cli.find(cpu)?.binaryDir ?? null,
      mountTarget: CODEX_CLI_MOUNT,
      pathEntries: [`${CODEX_CLI_MOUNT}/bin`, `${CODEX_CLI_MOUNT}/codex-path`],
    },
    credential: codexCredential,
    gateway: {
      wire: 'openai-responses',
      upstream: deps.config.baseUrl ?? 'https://api.openai.com',
      headers: (_kind, value) => ({ authorization: `Bearer ${value}` }),
    },
    usesResidentMcp: false,
    needsCredential: true,
    async ready(exec, workspace) {
      const r = await exec(['sh', '-c', `[ -x ${CODEX_CLI_MOUNT}/bin/codex ] || exit 3`]);
      if (r.exitCode === 3)
        throw new NexusError(
          'unavailable',
          `Workspace ${workspace} has no Codex CLI: install it on the host with bash scripts/install-codex-cli.sh ` +
            `(or set NEXUS_CODEX_CLI_DIR), then create the workspace again.`,
        );
    },
    plan(input) {
      // The gate's hook outlasts Nexus's wait, so Nexus always answers (a deny when nobody decided) first.
      const gate = Math.ceil(input.permissionWaitMs / 1000) + 15;
      return planCodexLaunch({
        workspace: input.workspace,
        workspaceId: input.workspaceId,
        name: input.name,
        sessionId: input.sessionId,
        initialMessage: input.initialMessage,
        resume: input.resume,
        threadId: input.conversationId,
        hooksJson: codexHooksJson((event, timeout) => input.hookHandler(event, timeout), gate),
        gatewayKeyFile: input.gateway?.keyFile ?? null,
      });
    },
    // Codex reads its servers from config.toml: the same servers, written 0600 the same way.
    mcpConfig: ({ stateDir, worktree, servers, trusted, gateway }) => ({
      file: codexConfigFile(stateDir),
      content: codexConfigToml({
        worktree,
        mcpServers: servers,
        gatewayUrl: gateway?.url ?? null,
        // A custom upstream (the tests' stand-in) serves whatever model it is asked for.
        ...(deps.config.baseUrl ? { model: 'nexus-model' } : {}),
        autoApproveServers: trusted,
      }),
    }),
    deliver: (exec, session, text) => queueForCodex(exec, session, text),
    // Codex names its thread only in its hooks: what `codex queue --thread` and `codex resume` need.
    conversationFrom: (name, event) => (name === 'SessionStart' ? (event.session_id ?? null) : null),
    // `codex resume` raises no hook until its next turn (measured on 0.169.0): at its prompt, idle, no watchdog.
    afterRelaunch: (session) =>
      session.conversationId
        ? { state: 'idle', message: 'Relaunched after a restart (Codex thread resumed)' }
        : { state: 'starting' },
  };
}

/** Files where the CLI keeps a sign-in of its own (`codex login`): reads of them are asked. */
codexDriver.cliCredentialFiles = [String.raw`\.codex/auth\.json`] as readonly string[];
/** The vault secret kinds that sign it in, known before a driver is built (the vault checks a secret's kind). */
codexDriver.secretKinds = codexCredential.secretKinds;
