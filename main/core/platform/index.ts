// The platform room's public face: what the rest of Nexus may use of it (docs/architecture.md, "Rooms and faces").
export { workspaceAgentName } from './agent-records';
export type { BoardChange } from './board-feed';
export type { BoardMirror, MirroredComment } from './board-mirror';
export { NatsConfig } from './config';
export { Names, type NameLookup } from './names';
export { leafNodeConfig, type LeafNodeInput, type NatsTrust } from './nats/leaf-node';
export { nexusMcpEnv } from './nexus-mcp-env';
export { platformHandlers } from './platform-handlers';
export { platformRecords } from './platform-records';
export { type HookEvent, PlatformService, type RunCredentials } from './platform-service';
export { reviewHandlers } from './review/review-handlers';
export { ReviewQueue } from './review/review-queue';
export type { Agent } from './store/agents';
export type { BoardRow } from './store/tasks';
export { openToolsDb } from './store/tools-db';
