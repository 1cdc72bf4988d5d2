import { afterAll, beforeAll } from 'vitest';
import type { Core } from '../../main/core';
import { vaultCore } from './core';
import { startRemoteNexus, type RemoteNexus } from './remote';

/**
 * Something a whole describe block shares: made before its first test, disposed after its last.
 * Read it inside a test (it is not there before `beforeAll` has run).
 */
function forSuite<T>(make: () => Promise<T>, dispose: (made: T) => Promise<void>): () => T {
  let made: { value: T } | undefined;
  beforeAll(async () => {
    made = { value: await make() };
  });
  afterAll(async () => {
    if (made) await dispose(made.value);
  });
  return () => {
    if (!made) throw new Error('made in beforeAll: read it inside a test');
    return made.value;
  };
}

/** One `vaultCore` (a real core, its vault set up) for a describe block: `suite.core`. */
export function vaultCoreForSuite(): { readonly core: Core } {
  const made = forSuite(vaultCore, (m) => m.cleanup());
  return {
    get core() {
      return made().core;
    },
  };
}

/** One `startRemoteNexus()` (Nexus behind a TLS tunnel stand-in) for a describe block: `remote.nexus`. */
export function remoteNexusForSuite(): { readonly nexus: RemoteNexus } {
  const made = forSuite(
    () => startRemoteNexus(),
    (n) => n.close(),
  );
  return {
    get nexus() {
      return made();
    },
  };
}
