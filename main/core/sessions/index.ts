// The sessions room's public face: what the rest of Nexus may use of it (docs/architecture.md, "Rooms and faces").
export { SessionsConfig } from './config';
export { createSessions } from './create-sessions';
export { sessionMemoryOf, sessionsMemoryHolds } from './memory/memory-admission';
export type { CreateSessionInput } from './session-creates';
export { sessionHandlers } from './session-handlers';
export { SessionLookup } from './session-lookup';
export { sessionPaths } from './session-paths';
export { autoStartFor, externalMcpFor } from './session-platform';
export type { SessionService } from './session-service';
export type { SessionSignalMap } from './session-signals';
export { SessionStore } from './session-store';
export { createSessionSetup } from './setup/create-session-setup';
