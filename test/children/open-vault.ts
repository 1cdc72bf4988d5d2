/**
 * Test child: opens a real core on a data dir (argv[2]) in a process whose environment the test
 * controls (e.g. no D-Bus session bus), runs one vault action (argv[3]) and prints JSON.
 *   status               the vault status after start-up
 *   unlock <passphrase>  unlock with the recovery passphrase, then resolve every secret
 *   init                 try to set up a new vault
 * The core's configuration comes from the environment as `nexus serve` reads it (NEXUS_VAULT_KEY_FILE, ...).
 */
import { configFromEnv } from '../../main/env-config';
import { openCore } from '../helpers/core';
import { operatorContext } from '../../main/core/handlers';
import { isNexusError } from '../../shared/errors';

const [dataDir, action, passphrase] = process.argv.slice(2);
if (!dataDir || !action) throw new Error('usage: open-vault <dataDir> <status|unlock|init> [passphrase]');
const op = operatorContext('internal');
const core = await openCore(dataDir, configFromEnv(process.env));
const out: Record<string, unknown> = {
  started: await core.dispatcher.call('vault.status', {}, op),
  board: core.status.get().vault,
};
try {
  if (action === 'unlock') {
    out.unlocked = await core.dispatcher.call('vault.unlock', { passphrase }, op);
    const { secrets } = await core.dispatcher.call('secrets.list', {}, op);
    out.resolved = await Promise.all(secrets.map(async (s) => (await core.vault.resolveSecret(s.id)).value.length));
  }
  if (action === 'init') out.init = await core.dispatcher.call('vault.init', {}, op);
} catch (e) {
  out.error = isNexusError(e) ? e.toWire() : { code: 'crash', message: String(e) };
}
await core.dispose();
process.stdout.write(`${JSON.stringify(out)}\n`);
