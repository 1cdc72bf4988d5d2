import type { AgentSecretKind } from '../secret-kind';
import type { AcpKindDeclaration } from './declaration';

/**
 * The model side of a kind that speaks OpenAI chat completions (OpenCode, Qwen Code): OpenAI's API by default, or
 * the OpenAI-compatible endpoint set as the kind's base URL, signed with a Bearer key of the secret kind the kind
 * declares (its folder names it: nothing else does).
 */
export const openAiCompatibleModel = (key: AgentSecretKind): AcpKindDeclaration['model'] => ({
  wire: 'openai-chat',
  upstream: 'https://api.openai.com',
  secretKinds: [key],
  describe: 'an OpenAI API key (or a key of the OpenAI-compatible endpoint set as its base URL)',
  headers: (_kind, value) => ({ authorization: `Bearer ${value}` }),
});
