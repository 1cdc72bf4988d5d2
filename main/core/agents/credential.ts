import type { SecretKind } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';
import type { AgentCredentialSpec } from './driver';

/**
 * How agents' credentials reach their CLIs in a worker without ever entering docker inspect, the container's
 * Env/Cmd/labels, a process's arguments or environment, logs, events or the pane. At workspace create and start (the
 * two operations that hold the data key) each kind's value goes on stdin to a 0600 file on the /run/nexus tmpfs
 * (memory only, gone when the container stops); what reads it there is the kind's own (its driver's credential.ts).
 * The agent itself runs as the file's owner, so it could read the file: the container is the boundary.
 */

/** One kind's credential file: `value` written there (0600), or null to remove it; `clear` are removed either way. */
export interface CredentialFile {
  path: string;
  value: string | null;
  /** The kind's other files (another secret kind's), removed when this one is written. */
  clear: readonly string[];
}

/**
 * The one docker exec that puts every kind's credential into a workspace container (or clears it): each value is
 * one line of stdin, read by the shell's `read` builtin and written atomically 0600. Nothing of a value is in argv.
 */
export function credentialInjection(files: readonly CredentialFile[]): { cmd: string[]; stdin: string } {
  const lines: string[] = [];
  const args: string[] = [];
  const steps: string[] = [];
  for (const f of files) {
    const value = f.value?.trim() ?? null;
    if (f.value !== null && (!value || /[\r\n\0]/.test(value)))
      throw new NexusError('bad_request', 'An agent credential must be one non-empty line.');
    for (const other of f.clear) steps.push(`rm -f -- "$${args.push(other)}"`);
    const at = args.push(f.path);
    if (value === null) steps.push(`rm -f -- "$${at}"`);
    else {
      lines.push(value);
      steps.push(
        `IFS= read -r v && printf '%s' "$v" > "$${at}.tmp" && chmod 600 "$${at}.tmp" && mv -f "$${at}.tmp" "$${at}"`,
      );
    }
  }
  const script = `umask 077 && ${steps.length ? steps.join(' && ') : 'true'} && unset v`;
  return { cmd: ['sh', '-c', script, 'sh', ...args], stdin: lines.map((l) => `${l}\n`).join('') };
}

/** A kind's credential file for a secret of `kind` (the kind's other files cleared). */
export function credentialFile(spec: AgentCredentialSpec, kind: SecretKind, value: string): CredentialFile {
  const path = spec.fileFor(kind);
  return { path, value, clear: spec.files.filter((f) => f !== path) };
}
