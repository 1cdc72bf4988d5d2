// The app room's public face: what the rest of Nexus may use of it (docs/architecture.md, "Rooms and faces").
export { appHandlers } from './app-handlers';
export { StatusBoard } from './status';
