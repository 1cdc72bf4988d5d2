// The permissions room's public face: what the rest of Nexus may use of it (docs/architecture.md, "Rooms and faces").
export { permissionHandlers } from './permission-handlers';
export { PermissionRequests } from './permission-requests';
export { RulesConfig } from './rules/config';
export { ruleHandlers } from './rules/rule-handlers';
export { RulesService } from './rules/rules-service';
