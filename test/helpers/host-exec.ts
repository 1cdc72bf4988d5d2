import { execFile } from 'node:child_process';
import type { ReviewExec } from '../../main/core/review/container-git';

/**
 * The runtime's exec as this host's own processes: a review script's `sh` and git run here, on a repository the test
 * made, as they would in a container. Asynchronous, so the test's timers run while a script waits (the radar's
 * watch); each call's argv goes to `seen` first (to count which path took the work).
 */
export function hostExec(seen?: (argv: string[]) => void): ReviewExec {
  return {
    exec: (_ws, argv, opts) =>
      new Promise((resolve) => {
        seen?.(argv);
        execFile(
          argv[0]!,
          argv.slice(1),
          { timeout: opts?.timeoutMs, maxBuffer: opts?.maxOutput ?? 4 * 1024 * 1024 },
          (err, stdout, stderr) => {
            const code = err && typeof err.code === 'number' ? err.code : err ? 1 : 0;
            resolve({ exitCode: code, stdout, stderr });
          },
        );
      }),
  };
}
