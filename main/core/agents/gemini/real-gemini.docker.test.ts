import { describe } from 'vitest';
import {
  geminiFunctionResponses,
  geminiToolNames,
  geminiUserTexts,
  type GeminiRequest,
} from '../../../../test/helpers/gemini-api';
import { realAcpKindSuite } from '../../../../test/helpers/real-acp-kind';

/** The real pinned Gemini CLI (`gemini --acp`) through a whole Nexus, against the Gemini API stand-in. */
describe('the real Gemini CLI through Nexus (ACP)', () => {
  realAcpKindSuite<GeminiRequest>({
    kind: 'gemini',
    speaker: 'Gemini',
    api: (fleet) => fleet.env.geminiApi,
    canary: (fleet) => fleet.env.geminiCanary,
    userTexts: geminiUserTexts,
    toolResults: (req) => JSON.stringify(geminiFunctionResponses(req)),
    toolNames: geminiToolNames,
    afterTool: (req) => (req.body.contents?.at(-1)?.parts ?? []).some((p) => p.functionResponse !== undefined),
    shell: (command) => ({ toolUse: { name: 'run_shell_command', input: { command, description: 'as asked' } } }),
    loadNeedsNextMinute: 'Gemini CLI 0.61 finds no session saved in the same clock minute (gemini-cli #28775)',
  });
});
