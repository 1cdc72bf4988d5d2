// The ship room's public face: what the rest of Nexus may use of it (docs/architecture.md, "Rooms and faces").
export { parseRemote } from './compare-link';
export { DIFF_BOUNDS } from './ship-diff';
export { readSections, type ShipExec, type ShipTarget } from './ship-git';
export { shipHandlers } from './ship-handlers';
export { boundPatches, changedFiles, splitPatch } from './ship-parse';
export { SessionShip } from './ship-service';
