// The acp family's face: a kind that speaks the Agent Client Protocol is a declaration (declaration.ts) made into a
// driver (acp-driver.ts); core is the client of every such session (acp-sessions.ts), its bridge owns the agent.
export { ACP_BRIDGE_FILES, acpBridgePath, acpDriver, acpMcpServers } from './acp-driver';
export { AcpSessions, type AcpSessionInfo, type AcpSessionsDeps } from './acp-sessions';
export { AcpStore } from './acp-store';
export { openAiCompatibleModel } from './openai-compatible';
export type { AcpCliDeclaration, AcpKindDeclaration } from './declaration';
export { acpHandlers } from './acp-handlers';
