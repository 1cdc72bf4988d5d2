/**
 * Test child for crash safety: unlocks the vault on a data dir (argv[2]) through the keychain (or,
 * for a passphrase vault, with the passphrase in argv[3]) and rotates the data key in a tight loop (add + remove a machine principal) until it is killed.
 * Prints "ready" once the first rotation is about to start.
 */
import { join } from 'node:path';
import { StatusBoard } from '../../main/core/app/status';
import { EventBus } from '../../main/core/events';
import { createLogger } from '../../main/core/log';
import { Redactor } from '../../main/core/redact';
import { openStore } from '../../main/core/store/open';
import { OsKeychain } from '../../main/core/vault/os-keychain';
import { VaultService } from '../../main/core/vault/vault';

const [dataDir, passphrase] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: rotate-until-killed <dataDir>');
const redactor = new Redactor();
const events = new EventBus(redactor);
const db = openStore(join(dataDir, 'nexus.db'));
const log = createLogger({ file: join(dataDir, 'logs', 'nexus.log'), redactor });
const vault = new VaultService({
  db,
  keychain: new OsKeychain(),
  redactor,
  log,
  events,
  status: new StatusBoard(events),
  dataDir,
});
const status = passphrase === undefined ? await vault.start() : (await vault.start(), await vault.unlock(passphrase));
if (status.state !== 'unlocked') throw new Error(`vault not unlocked: ${status.reason}`);
process.stdout.write('ready\n');
const credential = 'nxs_v_crashTestCredential_0123456789abcdefghij';
for (let i = 0; ; i++) {
  await vault.addMachinePrincipal(`crash-${i}`, credential);
  await vault.removePrincipal(`crash-${i}`);
}
