import type { AgentCredentialSpec } from '../driver';

/**
 * Codex's credential, an OpenAI API key, stays in core: the model gateway signs each request with it. Where versions
 * before the gateway put it in the container (removed at each workspace start).
 */
export const CODEX_OPENAI_KEY_FILE = '/run/nexus/openai-api-key';

export const codexCredential: AgentCredentialSpec = {
  secretKinds: [{ kind: 'openai_api_key', label: 'OpenAI API key' }],
  describe: 'an OpenAI API key',
  fileFor: () => CODEX_OPENAI_KEY_FILE,
  files: [CODEX_OPENAI_KEY_FILE],
};
