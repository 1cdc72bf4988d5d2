import { acpDriver } from '../acp';
import { GEMINI_ACP_ARGV, GEMINI_CLI, GEMINI_CLI_MOUNT } from './cli';

/**
 * Gemini CLI (`gemini --acp`), an ACP kind: docs/agents.md, "ACP kinds". It reads its model endpoint from
 * GOOGLE_GEMINI_BASE_URL (the session's gateway) and its key from GEMINI_API_KEY (the session's gateway credential);
 * MCP servers from session/new need the folder trusted (GEMINI_CLI_TRUST_WORKSPACE). It takes HTTP MCP servers
 * (`mcpCapabilities.http` in its `initialize` answer), so its sessions call the container's resident nexus-mcp, with no
 * nexus-mcp process per session. Its `default` mode asks before a shell call.
 */
export const geminiDriver = acpDriver({
  kind: 'gemini',
  label: 'Gemini CLI',
  speaker: 'Gemini',
  cli: { spec: GEMINI_CLI, mountTarget: GEMINI_CLI_MOUNT, argv: GEMINI_ACP_ARGV },
  model: {
    wire: 'google-generate',
    upstream: 'https://generativelanguage.googleapis.com',
    secretKinds: [{ kind: 'gemini_api_key', label: 'Gemini API key' }],
    describe: 'a Gemini API key',
    headers: (_kind, value) => ({ 'x-goog-api-key': value }),
  },
  env: ({ gatewayUrl, model }) => ({
    GOOGLE_GEMINI_BASE_URL: gatewayUrl,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    ...(model ? { GEMINI_MODEL: model } : {}),
  }),
  keyVar: 'GEMINI_API_KEY',
  askMode: 'default',
  mcpTransports: ['stdio', 'http'],
  sessionStore: '.gemini/tmp',
  credentialFiles: [String.raw`\.gemini/oauth_creds\.json`],
});
