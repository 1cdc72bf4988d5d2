import { describe } from 'vitest';
import {
  chatToolNames,
  chatToolResults,
  chatUserTexts,
  type ChatRequest,
} from '../../../../test/helpers/chat-completions-api';
import { realAcpKindSuite } from '../../../../test/helpers/real-acp-kind';

/**
 * Copilot CLI opens each prompt's user message with the time (measured on 1.0.102):
 * `<current_datetime>…</current_datetime>\n\n<the prompt>`, the prompt byte for byte but for its trailing
 * whitespace, which it cuts (its own session log keeps the prompt as sent).
 */
const DATETIME = /^<current_datetime>[^<]*<\/current_datetime>\n\n/;

/**
 * The real pinned Copilot CLI through a whole Nexus (ACP), bring-your-own-key against the Chat Completions stand-in;
 * its platform tools come over HTTP from the container's resident nexus-mcp (it rejects stdio MCP servers).
 */
describe('the real Copilot CLI through Nexus (ACP)', () => {
  realAcpKindSuite<ChatRequest>({
    kind: 'copilot',
    speaker: 'Copilot',
    api: (fleet) => fleet.env.chatApi,
    canary: (fleet) => fleet.env.chatCanary,
    userTexts: (req) => chatUserTexts(req).map((t) => t.replace(DATETIME, '')),
    toolResults: (req) => JSON.stringify(chatToolResults(req)),
    toolNames: chatToolNames,
    afterTool: (req) => req.body.messages?.at(-1)?.role === 'tool',
    asSeen: (typed) => typed.trimEnd(),
    // Its default waits 30 s for a command's output, then returns and lets it run on.
    shell: (command) => ({ toolUse: { name: 'bash', input: { command, description: 'as asked', initial_wait: 600 } } }),
  });
});
