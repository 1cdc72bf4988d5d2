import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config';

// The fast tier (`npm run test:unit`): every vitest test that needs no Docker engine, no OS keychain
// (Secret Service), no network and no browser. The whole suite stays `bash scripts/test.sh`.

/** Tests that talk to the Docker engine: the naming convention, and older files that predate it. */
const needsEngine = [
  '**/*.docker.test.ts',
  '**/*.mcp.test.ts',
  'main/core/workspaces/{workspaces,workspace-*,runtime-exec,worker-image}.test.ts',
  'main/core/attention/workspace-offline.test.ts',
  'main/core/mcp/vault-no-widening.test.ts',
  'main/core/sessions/reads-without-engine.test.ts',
  'resources/worker/nexus-mcp/bundle-node18.test.ts',
];

/** Tests that set up a vault, which keeps its key in the OS keychain (run them under scripts/with-keychain.sh). */
const needsKeychain = [
  'main/cli/cli.test.ts',
  'main/core/agent/agent-service.test.ts',
  'main/core/mcp/conformance.test.ts',
  'main/core/mcp/connect.test.ts',
  'main/core/mcp/fleet/credentials.test.ts',
  'main/core/mcp/gate-attacks.test.ts',
  'main/core/mcp/gate-matrix.test.ts',
  'main/core/mcp/mcp-http.test.ts',
  'main/core/mcp/mcp-malformed.property.test.ts',
  'main/core/tokens/reveal-once.test.ts',
  'main/core/tokens/tokens.test.ts',
  'main/core/tokens/vault-principal.test.ts',
  'main/core/vault/crash-safety.test.ts',
  'main/core/vault/keychain-unavailable.test.ts',
  'main/core/vault/principals.test.ts',
  'main/core/vault/secrets.test.ts',
  'main/core/vault/vault.test.ts',
  'main/host/disk-full.test.ts',
  'main/host/fleet-host-network.test.ts',
  'main/host/rpc-malformed.property.test.ts',
  'main/host/secret-canary.test.ts',
];

export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: [...configDefaults.exclude, ...needsEngine, ...needsKeychain],
    },
  }),
);
