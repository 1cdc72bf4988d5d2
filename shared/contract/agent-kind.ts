import { z } from 'zod';

/** Which agent CLI a session runs: Claude Code (`claude`) or Codex (`codex`); see docs/agents.md. */
export const AgentKind = z.enum(['claude', 'codex']);
export type AgentKind = z.infer<typeof AgentKind>;
