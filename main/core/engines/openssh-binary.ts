import { isAbsolute } from 'node:path';
import { onPath } from './join-platform';

/**
 * OpenSSH's `ssh` on this machine's PATH (null: none), found as joinPlatform finds the leaf link's: the preview
 * tunnels' OpenSSH child runs it, and without it ssh2's channel carries them.
 */
export function openSshBinary(): string | null {
  const ssh = onPath('ssh');
  return isAbsolute(ssh) ? ssh : null;
}
