import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { operations, type OpInput, type OpName, type OpOutput } from '../../shared/contract';
import { errorMessage, RemoteError, WireError } from '../../shared/errors';
import { createCore, type CoreApi } from '../core';
import { operatorContext } from '../core/handlers';
import { nodePorts } from '../host/node-ports';
import { CliError, NotRunningError } from './exit-codes';

export { CliError } from './exit-codes';

/** What `nexus serve` writes to `<dataDir>/serve.json` (mode 0600) for local tools. */
export const ServeFile = z.object({
  url: z.string(),
  port: z.number().int(),
  token: z.string(),
  pid: z.number().int(),
});
export type ServeFile = z.infer<typeof ServeFile>;

export function readServeFile(dataDir: string): ServeFile | null {
  try {
    return ServeFile.parse(JSON.parse(readFileSync(join(dataDir, 'serve.json'), 'utf8')));
  } catch {
    return null;
  }
}

/**
 * Runs an operator operation for the CLI. When the app is running it goes through the app's own
 * /api/rpc with the operator credential from serve.json, so there is one writer (the vault's data
 * key lives in that process); otherwise core is opened on the data dir for this one call (unless `runningOnly`).
 */
export async function operatorCall<K extends OpName>(
  dataDir: string,
  appRoot: string,
  op: K,
  input: OpInput<K>,
  opts: { runningOnly?: boolean } = {},
): Promise<OpOutput<K>> {
  const serveFile = readServeFile(dataDir);
  const answer = serveFile ? await runningAppCall(serveFile, op, input) : null;
  if (answer) return answer.result;
  if (opts.runningOnly) throw notRunning(dataDir);
  const core: CoreApi = await createCore({}, nodePorts(dataDir, appRoot));
  try {
    return await core.dispatcher.call(op, input, operatorContext('cli'));
  } catch (e) {
    throw new CliError(errorMessage(e));
  } finally {
    await core.dispose();
  }
}

const notRunning = (dataDir: string): NotRunningError =>
  new NotRunningError(`Nexus is not running on ${dataDir}: start it (nexus serve) first.`);

/**
 * An operation on the running app only (sessions live there): exit 3 when nothing answers on the
 * data dir. Everything the commands that drive sessions do goes through here.
 */
export async function appCall<K extends OpName>(dataDir: string, op: K, input: OpInput<K>): Promise<OpOutput<K>> {
  return (await connectedApp(dataDir)).call(op, input);
}

/** The running app on the data dir (its URL and the operator's credential), checked to answer. */
export async function connectedApp(
  dataDir: string,
): Promise<{ serveFile: ServeFile; call<K extends OpName>(op: K, input: OpInput<K>): Promise<OpOutput<K>> }> {
  const serveFile = readServeFile(dataDir);
  if (!serveFile || !(await runningAppCall(serveFile, 'app.info', {}))) throw notRunning(dataDir);
  return {
    serveFile,
    async call(op, input) {
      const answer = await runningAppCall(serveFile, op, input);
      if (!answer) throw notRunning(dataDir);
      return answer.result;
    },
  };
}

/**
 * One operation on the running app serve.json names, with its operator credential. Null when nothing
 * answers there (not running, or serve.json left behind by a crashed app); an error answer throws.
 */
export async function runningAppCall<K extends OpName>(
  serveFile: ServeFile,
  op: K,
  input: OpInput<K>,
): Promise<{ result: OpOutput<K> } | null> {
  let res: Response;
  try {
    res = await fetch(`${serveFile.url}/api/rpc/${op}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${serveFile.token}` },
      body: JSON.stringify(input),
    });
  } catch {
    return null;
  }
  const body = (await res.json()) as { result?: unknown; error?: unknown };
  if (res.ok && body.result !== undefined) {
    // The answer crosses a process boundary: read it through the contract's own output schema.
    const result = operations[op].output.safeParse(body.result);
    if (result.success) return { result: result.data as OpOutput<K> };
    throw new CliError(`Nexus answered ${op} with something this nexus cannot read (a different version?).`);
  }
  const error = WireError.safeParse(body.error);
  throw new RemoteError(
    error.success ? error.data : { code: 'internal', message: `Nexus answered HTTP ${res.status}.` },
  );
}
