import { acpDriver, openAiCompatibleModel } from '../acp';
import { OPENCODE_ACP_ARGV, OPENCODE_CLI, OPENCODE_CLI_MOUNT } from './cli';

/** The variable OpenCode's config reads the session's gateway credential from (`{env:…}`). */
const KEY_VAR = 'NEXUS_MODEL_KEY';

/**
 * OpenCode (`opencode acp`), an ACP kind: docs/agents.md, "ACP kinds". Its whole config comes in
 * OPENCODE_CONFIG_CONTENT: one OpenAI-compatible provider at the session's gateway, its key read from the environment,
 * and `permission` bash/edit `ask` (by default it runs them unasked); updates, sharing and model fetches off.
 */
export const opencodeDriver = acpDriver({
  kind: 'opencode',
  label: 'OpenCode',
  speaker: 'OpenCode',
  cli: { spec: OPENCODE_CLI, mountTarget: OPENCODE_CLI_MOUNT, argv: OPENCODE_ACP_ARGV },
  model: openAiCompatibleModel({ kind: 'openai_api_key', label: 'OpenAI API key' }),
  env: ({ gatewayUrl, model }) => ({
    OPENCODE_CONFIG_CONTENT: JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      model: `nexus/${model ?? 'gpt-4.1'}`,
      provider: {
        nexus: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Nexus',
          options: { baseURL: `${gatewayUrl}/v1`, apiKey: `{env:${KEY_VAR}}` },
          models: { [model ?? 'gpt-4.1']: { name: model ?? 'gpt-4.1' } },
        },
      },
      permission: { bash: 'ask', edit: 'ask' },
      autoupdate: false,
      share: 'disabled',
      // Its snapshots are git copies of the worktree per turn; Nexus keeps its own checkpoints.
      snapshot: false,
    }),
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_SHARE: '1',
  }),
  keyVar: KEY_VAR,
  askMode: null,
  mcpTransports: ['stdio'],
  sessionStore: '.local/share/opencode',
  credentialFiles: [String.raw`\.local/share/opencode/auth\.json`],
});
