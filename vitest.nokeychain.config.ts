import { configDefaults, defineConfig } from 'vitest/config';
import base, { noKeychainTests } from './vitest.config';

// The no-keychain tier: `*.nokeychain.test.ts` only, run by scripts/test.sh with no D-Bus session bus in the
// environment (as `npm run serve` runs on a server). Its tests need the Docker engine.
export default defineConfig({
  ...base,
  test: { ...base.test, include: noKeychainTests, exclude: [...configDefaults.exclude] },
});
