import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config';

// The fast tier (`npm run test:unit`): every vitest test that needs no Docker engine, no OS keychain
// (Secret Service), no network and no browser. A test says what it needs by its file name, not by a
// list here: `*.docker.test.ts` and `*.mcp.test.ts` talk to the Docker engine, `*.browser.test.ts` drive the
// renderer in headless Chromium (test/helpers/renderer-page.ts), `*.keychain.test.ts`
// set up a vault whose key is in the OS keychain (run them under scripts/with-keychain.sh), and
// `*.nokeychain.test.ts` run only in their own tier (vitest.nokeychain.config.ts). The whole suite
// stays `bash scripts/test.sh`.
export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: [
        ...configDefaults.exclude,
        '**/*.docker.test.ts',
        '**/*.mcp.test.ts',
        '**/*.browser.test.ts',
        '**/*.keychain.test.ts',
        '**/*.nokeychain.test.ts',
      ],
    },
  }),
);
