import { afterAll, beforeAll } from 'vitest';
import type { Core } from '../../main/core';
import { vaultCore } from './core';
import { startRemoteNexus, type RemoteNexus } from './remote';
import { startRemoteFleet, type RemoteFleet, type RemoteFleetOptions } from './second-engine';

/**
 * Something a whole describe block shares: made before its first test, disposed after its last.
 * Read it inside a test (it is not there before `beforeAll` has run).
 */
function forSuite<T>(
  make: () => Promise<T>,
  dispose: (made: T) => Promise<void>,
  timeouts: { make?: number; dispose?: number } = {},
): () => T {
  let made: { value: T } | undefined;
  beforeAll(async () => {
    made = { value: await make() };
  }, timeouts.make);
  afterAll(async () => {
    if (made) await dispose(made.value);
  }, timeouts.dispose);
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

/**
 * One `startRemoteFleet(opts)` (a whole Nexus, a second engine joined, a workspace on it) for a describe block:
 * `remote.fleet`, `remote.engine`, `remote.sh(…)`. Up to 15 minutes to make (the worker image copied to the
 * engine, the workspace cloned there), 5 to dispose.
 */
export function remoteFleetForSuite(opts: RemoteFleetOptions): Omit<RemoteFleet, 'dispose'> {
  const made = forSuite(
    () => startRemoteFleet(opts),
    (r) => r.dispose(),
    { make: 900_000, dispose: 300_000 },
  );
  return {
    get engine() {
      return made().engine;
    },
    get fleet() {
      return made().fleet;
    },
    get engineId() {
      return made().engineId;
    },
    get workspace() {
      return made().workspace;
    },
    leaves: () => made().leaves(),
    sh: (script) => made().sh(script),
    hookTarget: () => made().hookTarget(),
    runCredsOf: (sessionId) => made().runCredsOf(sessionId),
  };
}
