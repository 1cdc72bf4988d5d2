/**
 * Test child: opens a real core (real OS keychain port) on a data dir (argv[2]) whose passphrase
 * vault the parent set up, in a process the parent started without a session bus; unlocks with
 * argv[3], sets a workspace's delegation, reads its secret back and connects Claude Desktop.
 * Prints what it saw as JSON, secrets by their class prefix only.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openCore, coreDb, closeCoreDb } from '../helpers/core';
import { operatorContext } from '../../main/core/handlers';
import { STDIO_TOKEN_FILE } from '../../main/core/mcp/stdio-credential';
import { OsKeychain } from '../../main/core/vault/os-keychain';
import { isNexusError } from '../../shared/errors';

const [dataDir, passphrase] = process.argv.slice(2);
if (!dataDir || !passphrase) throw new Error('usage: core-secrets-no-bus <dataDir> <passphrase>');
const op = operatorContext('internal');
const core = await openCore(dataDir, { mcp: { claudeDesktopConfig: join(dataDir, 'claude_desktop_config.json') } });
const out: Record<string, unknown> = {};
try {
  const keychainAnswers = await new OsKeychain().get('nexus-desktop', 'no-bus-check').then(
    () => true,
    () => false,
  );
  out.keychainAnswers = keychainAnswers;
  await core.dispatcher.call('vault.unlock', { passphrase }, op);
  const { credential } = await core.dispatcher.call('delegation.set', { workspace: 'alpha', access: 'write' }, op);
  out.set = { class: credential?.class, state: credential?.state };
  out.secret = (await core.delegation.credentials.secretOf('ws-a'))?.slice(0, 6) ?? null;
  out.sealedRows = (coreDb(core).prepare('SELECT count(*) AS n FROM core_secrets').get() as { n: number }).n;
  const connected = await core.dispatcher.call('connect.claudeDesktop', { class: 'read' }, op);
  out.connect = {
    newToken: connected.newToken,
    filed: readFileSync(join(dataDir, STDIO_TOKEN_FILE), 'utf8').slice(0, 6),
  };
} catch (e) {
  out.error = isNexusError(e) ? e.toWire() : { code: 'crash', message: String(e) };
}
closeCoreDb(core);
await core.dispose();
process.stdout.write(`${JSON.stringify(out)}\n`);
