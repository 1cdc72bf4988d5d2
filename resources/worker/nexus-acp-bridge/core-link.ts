/**
 * The bridge's link to core: the NATS client and the workspace's hook credentials. Its own bundle beside the bridge
 * (scripts/worker-bundles.mjs), loaded only once the agent is spawned, so Node reads and compiles it while the agent
 * starts, not before.
 */
export { connect } from '@nats-io/transport-node';
export { hookFileAuth } from '../nats-credential';
