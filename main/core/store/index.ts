// The store room's public face: what the rest of Nexus may use of it (docs/architecture.md, "Rooms and faces").
export { type Db, openStore } from './open';
export { StatementThread, type StatementParams } from './statement-thread';
