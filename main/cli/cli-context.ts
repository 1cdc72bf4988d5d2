import { resolve } from 'node:path';

/** A terminal-capable input: the process's stdin, or a stand-in in tests. */
export type CliInput = NodeJS.ReadableStream & {
  isTTY?: boolean;
  setRawMode?: (raw: boolean) => unknown;
};

/** A terminal-capable output: its size when it is a terminal. */
export type CliOutput = NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };

/** What every command may use from the process that runs it (the real one in `main/cli.ts`). */
export interface CliContext {
  /** The repository (or unpacked app) root. */
  appRoot: string;
  defaultDataDir: string;
  defaultPort: number;
  env: NodeJS.ProcessEnv;
  home: string;
  platform: NodeJS.Platform;
  /** The Node running this command (process.execPath) and its version. */
  node: string;
  nodeVersion: string;
  uid: number;
  stdin: CliInput;
  stdout: CliOutput;
  stderr: NodeJS.WritableStream;
  /** Called with a signal name's listener (SIGWINCH for attach); returns the unsubscribe. */
  onSignal(signal: NodeJS.Signals, listener: () => void): () => void;
}

/** The data dir a command works on: `--data-dir`, else NEXUS_DATA_DIR or the default. */
export const dataDirOf = (ctx: CliContext, value: string | undefined): string =>
  value ? resolve(value) : ctx.defaultDataDir;
