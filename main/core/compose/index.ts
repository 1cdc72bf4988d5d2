// The compose room's public face: the builders the composition root (main/core/index.ts) lists core's modules from.
export { buildFoundations, type Foundations } from './foundations';
export { buildDelegation } from './delegation';
export { buildGateway } from './gateway';
export { buildOperator } from './operator';
export { buildPlatform } from './platform';
export { buildSessions } from './sessions';
export { buildAgents, buildDrivers, buildVault } from './vault-and-agents';
export { workerHost } from './worker-host';
export { buildWorkspaces, dockerProbe } from './workspaces';
