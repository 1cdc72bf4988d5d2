import { describe } from 'vitest';
import {
  chatToolNames,
  chatToolResults,
  chatUserTexts,
  type ChatRequest,
} from '../../../../test/helpers/chat-completions-api';
import { realAcpKindSuite } from '../../../../test/helpers/real-acp-kind';

/** The real pinned Qwen CLI through a whole Nexus (ACP), against the Chat Completions stand-in. */
describe('the real Qwen through Nexus (ACP)', () => {
  realAcpKindSuite<ChatRequest>({
    kind: 'qwen',
    speaker: 'Qwen',
    api: (fleet) => fleet.env.chatApi,
    canary: (fleet) => fleet.env.chatCanary,
    userTexts: chatUserTexts,
    toolResults: (req) => JSON.stringify(chatToolResults(req)),
    toolNames: chatToolNames,
    afterTool: (req) => req.body.messages?.at(-1)?.role === 'tool',
    shell: (command) => ({ toolUse: { name: 'run_shell_command', input: { command, description: 'as asked' } } }),
    // Its todo tool; Qwen Code sends the list as an ACP plan update (`PlanEmitter`, 0.24.4).
    plan: (todos) => ({ toolUse: { name: 'todo_write', input: { todos } } }),
  });
});
