import { removeOwnedBy } from './docker';
import { stopLeftNats, type NexusProcess } from './nexus-process';

/**
 * Test clean-up after a `nexus serve` that was SIGKILLed and started again on `dataDir`: deletes
 * `workspace` through the core now running (if any), stops it, stops a nats-server a killed core
 * left behind, and removes every container and volume the cores on `dataDir` made.
 */
export async function tearDownCrashedCore(
  nexus: NexusProcess | undefined,
  dataDir: string,
  workspace: string,
): Promise<void> {
  await nexus?.rpc('workspaces.delete', { workspace }).catch(() => undefined);
  await nexus?.kill('SIGTERM');
  await stopLeftNats(dataDir);
  await removeOwnedBy(dataDir);
}
