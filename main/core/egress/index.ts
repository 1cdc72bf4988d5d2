// Egress by allow-list: confined workspaces' proxy, their allow-lists and what was refused (docs/security.md).
export { matchAllowList, parseAllowEntry, parseAllowList, type AllowEntry } from './allow-list';
export { egressHandlers } from './egress-handlers';
export { EgressStore, REFUSALS_KEPT, type EgressRefusal } from './egress-store';
export { EgressConfig } from './config';
export { gitHostEntry, WorkspaceEgress, type EgressWorkspace } from './workspace-egress';
