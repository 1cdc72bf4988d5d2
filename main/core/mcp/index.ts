// The mcp room's public face: what the rest of Nexus may use of it (docs/architecture.md, "Rooms and faces").
export { connectHandlers, ConnectService } from './connect';
export type { DelegationService } from './delegation/delegation-service';
export { createDelegation, delegationHandlers, delegationStep } from './delegation/wire';
export { createMcpGate, MCP_PATH, type McpGateOptions } from './gate';
export { STDIO_KEYCHAIN_SERVICE, stdioKeychainAccount, stdioTokenFile } from './stdio-credential';
