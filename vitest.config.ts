import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'main/**/*.test.ts',
      'shared/**/*.test.ts',
      'preload/**/*.test.ts',
      'renderer/src/**/*.test.{ts,tsx}',
      'resources/**/*.test.ts',
    ],
    environment: 'node',
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests share one Docker engine and the session keychain: keep files few at once.
    maxWorkers: 2,
  },
});
