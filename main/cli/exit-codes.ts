/**
 * What `nexus` exits with, for scripts: 0 done, 1 failed (the app refused or something broke),
 * 2 a usage error (the command line itself is wrong), 3 no app runs on the data dir (as
 * `systemctl status` answers for an inactive unit).
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, notRunning: 3 } as const;

/** A failure of the CLI itself, said in one line; what the running app answers comes back as a `RemoteError`. */
export class CliError extends Error {
  readonly exitCode: number = EXIT.failed;
}

/** The command line is wrong: exit 2 with one line saying why. */
export class UsageError extends CliError {
  override readonly exitCode = EXIT.usage;
}

/** Nothing answers on the data dir (no serve.json, or a stale one): exit 3. */
export class NotRunningError extends CliError {
  override readonly exitCode = EXIT.notRunning;
}
