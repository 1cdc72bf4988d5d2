import { workerHostAddress as hostAddressOn } from '../../main/core/docker';
import { realDocker } from './docker';

/** The worker network the tests run on: Nexus's default bridge. */
export const TEST_NETWORK = 'nexus';

let cached: Promise<string> | null = null;

/**
 * The address a container on the `nexus` bridge reaches the host on (the bridge's gateway; the
 * network is created when missing). Test servers that workers must reach listen here, never on
 * every interface.
 */
export function workerHostAddress(): Promise<string> {
  cached ??= hostAddressOn(realDocker(), TEST_NETWORK);
  return cached;
}
