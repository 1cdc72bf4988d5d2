// The model gateway's face (docs/gateway.md): every session's model traffic, its credential swap, the usage ledger
// and the budgets.
export { ModelGateway, type ModelGatewayDeps } from './gateway';
export { gatewayHandlers } from './gateway-handlers';
export type { GatewayCaller } from './gateway-credential-store';
export type { TokenCounts } from './usage-parse';
export { RESUME_MESSAGE } from './usage-limit';
export type { LimitedView } from './usage-limit';
