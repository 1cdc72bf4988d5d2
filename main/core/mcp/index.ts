// The mcp room's public face: what the rest of Nexus may use of it (docs/architecture.md, "Rooms and faces").
export { connectHandlers, ConnectService } from './connect';
export type { FleetService } from './fleet/fleet';
export { createFleet, fleetHandlers, fleetStep } from './fleet/wire';
export { createMcpGate, MCP_PATH, type McpGateOptions } from './gate';
export { STDIO_KEYCHAIN_SERVICE, stdioKeychainAccount, stdioTokenFile } from './stdio-credential';
