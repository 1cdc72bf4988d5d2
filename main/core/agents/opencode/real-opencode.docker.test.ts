import { describe } from 'vitest';
import {
  chatToolNames,
  chatToolResults,
  chatUserTexts,
  type ChatRequest,
} from '../../../../test/helpers/chat-completions-api';
import { realAcpKindSuite } from '../../../../test/helpers/real-acp-kind';

/** The real pinned OpenCode CLI through a whole Nexus (ACP), against the Chat Completions stand-in. */
describe('the real OpenCode through Nexus (ACP)', () => {
  realAcpKindSuite<ChatRequest>({
    kind: 'opencode',
    speaker: 'OpenCode',
    api: (fleet) => fleet.env.chatApi,
    canary: (fleet) => fleet.env.chatCanary,
    userTexts: chatUserTexts,
    toolResults: (req) => JSON.stringify(chatToolResults(req)),
    toolNames: chatToolNames,
    afterTool: (req) => req.body.messages?.at(-1)?.role === 'tool',
    shell: (command) => ({ toolUse: { name: 'bash', input: { command, description: 'as asked' } } }),
  });
});
