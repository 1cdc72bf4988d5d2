// The engines room's public face: what the rest of Nexus may use of it (docs/architecture.md, "Rooms and faces").
export { engineHandlers } from './engine-handlers';
export type { EngineService } from './engine-service';
export { joinPlatform } from './join-platform';
export { openSshBinary } from './programs';
export { createEngines, type Engines } from './wire';
