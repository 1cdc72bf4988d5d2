#!/usr/bin/env node
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from './cli/cli-app';
import type { CliContext } from './cli/cli-context';
import { KEEP_RUNNING } from './cli/serve-command';

export const DEFAULT_PORT = 4780;

export function defaultDataDir(env = process.env): string {
  if (env.NEXUS_DATA_DIR) return resolve(env.NEXUS_DATA_DIR);
  const base = env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share');
  return join(base, 'nexus-desktop');
}

/** The repository (or unpacked app) root: dist/cli.js and main/cli.ts both sit one level below it. */
const appRoot = fileURLToPath(new URL('..', import.meta.url));

const ctx: CliContext = {
  appRoot,
  defaultDataDir: defaultDataDir(),
  defaultPort: DEFAULT_PORT,
  env: process.env,
  home: homedir(),
  platform: process.platform,
  node: process.execPath,
  nodeVersion: process.version,
  uid: process.getuid?.() ?? -1,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  onSignal(signal, listener) {
    process.on(signal, listener);
    return () => void process.off(signal, listener);
  },
};

runCli(process.argv.slice(2), ctx).then((code) => {
  // Let stdout drain before exiting (a piped `nexus ls --json` can be long).
  if (code !== KEEP_RUNNING) process.stdout.write('', () => process.exit(code));
});
