// The audit room's public face: what the rest of Nexus may use of it (docs/architecture.md, "Rooms and faces").
export { listActivity } from './activity';
export { type AuditEntry, AuditLog } from './audit-log';
