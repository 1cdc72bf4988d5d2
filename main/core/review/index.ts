// The review room's public face: what the rest of Nexus may use of it (docs/architecture.md, "Rooms and faces").
export { createReviewTalk } from './review-talk';
export type { ConflictRadar } from './radar';
