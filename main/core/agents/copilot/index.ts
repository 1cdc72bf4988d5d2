import { acpDriver, openAiCompatibleModel } from '../acp';
import { COPILOT_ACP_ARGV, COPILOT_CLI, COPILOT_CLI_MOUNT, COPILOT_PKG_CACHE } from './cli';

/**
 * GitHub Copilot CLI (`copilot --acp`), an ACP kind: docs/agents.md, "ACP kinds". Bring-your-own-key: it speaks
 * OpenAI chat completions to COPILOT_PROVIDER_BASE_URL (the session's gateway) with COPILOT_PROVIDER_API_KEY (the
 * session's gateway credential), with no GitHub sign-in; offline mode keeps it off GitHub's services (telemetry, its
 * GitHub MCP server, updates). Its default mode (`…/session-modes#agent`, allow-all off) asks before a shell call. It
 * takes only HTTP/SSE MCP servers from session/new: the session's platform tools come from the container's resident
 * nexus-mcp over HTTP. Its first run would unpack 235 MB into ~/.cache/copilot; the install unpacks it once, read-only
 * in the mount (COPILOT_PKG_CACHE_HOME).
 */
export const copilotDriver = acpDriver({
  kind: 'copilot',
  label: 'Copilot CLI',
  speaker: 'Copilot',
  cli: { spec: COPILOT_CLI, mountTarget: COPILOT_CLI_MOUNT, argv: COPILOT_ACP_ARGV },
  model: openAiCompatibleModel({ kind: 'openai_api_key', label: 'OpenAI API key' }),
  env: ({ gatewayUrl, model }) => ({
    COPILOT_PROVIDER_BASE_URL: `${gatewayUrl}/v1`,
    COPILOT_PROVIDER_TYPE: 'openai',
    COPILOT_MODEL: model ?? 'gpt-4.1',
    COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    COPILOT_PKG_CACHE_HOME: `${COPILOT_CLI_MOUNT}/${COPILOT_PKG_CACHE}`,
  }),
  keyVar: 'COPILOT_PROVIDER_API_KEY',
  askMode: null,
  mcpTransports: ['http'],
  sessionStore: '.copilot/session-state',
  credentialFiles: [String.raw`\.copilot/config\.json`],
});
