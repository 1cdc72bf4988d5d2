// The terminal room's public face: what the rest of Nexus may use of it (docs/architecture.md, "Rooms and faces").
export { capturePane } from './pane';
export { openTerminalChannel, type TerminalChannel } from './terminal-channel';
export { type LiveWindow, SessionTerminals } from './terminal';
