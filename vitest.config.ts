import { configDefaults, defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/slow-first-sequencer';

/**
 * The tier with no Secret Service (`*.nokeychain.test.ts`): tests of the configuration `npm run serve` ships on a
 * server, where no D-Bus session bus exists. They run on their own, outside scripts/with-keychain.sh
 * (vitest.nokeychain.config.ts), never in the keychain run.
 */
export const noKeychainTests = ['main/**/*.nokeychain.test.ts'];

export default defineConfig({
  test: {
    include: [
      'main/**/*.test.ts',
      'shared/**/*.test.ts',
      'preload/**/*.test.ts',
      'renderer/src/**/*.test.{ts,tsx}',
      'resources/**/*.test.ts',
    ],
    exclude: [...configDefaults.exclude, ...noKeychainTests],
    // An `internal` answer of an in-process core fails the test that got it, unless it expectInternal()s it.
    setupFiles: ['test/helpers/internal-alarm-setup.ts'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests share one Docker engine and the session keychain: keep files few at once.
    maxWorkers: 2,
    // The files that run real agent CLIs first (they are short files with the longest runs).
    sequence: { sequencer: SlowFirstSequencer },
  },
});
