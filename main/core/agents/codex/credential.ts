import type { AgentCredentialSpec } from '../driver';

/**
 * Codex's credential (an OpenAI API key) on the /run/nexus tmpfs: a session's launch script signs in with
 * `codex login --with-api-key < <file>`, which writes $CODEX_HOME/auth.json (0600); `OPENAI_API_KEY` alone still
 * shows Codex's login screen (measured on 0.169.0).
 */
export const CODEX_OPENAI_KEY_FILE = '/run/nexus/openai-api-key';

export const codexCredential: AgentCredentialSpec = {
  secretKinds: ['openai_api_key'],
  describe: 'an OpenAI API key',
  fileFor: () => CODEX_OPENAI_KEY_FILE,
  files: [CODEX_OPENAI_KEY_FILE],
};
