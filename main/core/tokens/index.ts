// The tokens room's public face: what the rest of Nexus may use of it (docs/architecture.md, "Rooms and faces").
export { tokenHandlers } from './token-handlers';
export { type Authentication, TokenService } from './tokens';
