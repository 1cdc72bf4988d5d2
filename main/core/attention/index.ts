// The attention room's public face: what the rest of Nexus may use of it (docs/architecture.md, "Rooms and faces").
export { attentionHandlers } from './attention-handlers';
export type { AttentionService } from './attention-service';
export { fleetAttention } from './fleet-attention';
