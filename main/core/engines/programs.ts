import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** A program name as the shell would find it on PATH (an absolute path is kept; a name not found comes back as is). */
export function onPath(binary: string): string {
  if (isAbsolute(binary)) return binary;
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const p = join(dir, binary);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return binary;
}

/**
 * OpenSSH's `ssh` on this machine's PATH (null: none): the leaf link's forward and the preview tunnels' child run it;
 * without it, ssh2 on the engine's connection carries both.
 */
export function openSshBinary(): string | null {
  const ssh = onPath('ssh');
  return isAbsolute(ssh) ? ssh : null;
}
