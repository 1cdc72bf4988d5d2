import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { OpInput, OpName, OpOutput } from '../../shared/contract';
import { errorMessage, RemoteError, WireError } from '../../shared/errors';
import { createCore, type CoreApi } from '../core';
import { operatorContext } from '../core/handlers';
import { nodePorts } from '../host/node-ports';

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

/** A usage or local error of the CLI itself; what the running app answers comes back as a `RemoteError`. */
export class CliError extends Error {}

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
  if (opts.runningOnly) throw new CliError(`Nexus is not running on ${dataDir}: start it (nexus serve) first.`);
  const core: CoreApi = await createCore({}, nodePorts(dataDir, appRoot));
  try {
    return await core.dispatcher.call(op, input, operatorContext('cli'));
  } catch (e) {
    throw new CliError(errorMessage(e));
  } finally {
    await core.dispose();
  }
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
  const body = (await res.json()) as { result?: OpOutput<K>; error?: unknown };
  if (res.ok && body.result !== undefined) return { result: body.result };
  const error = WireError.safeParse(body.error);
  throw new RemoteError(
    error.success ? error.data : { code: 'internal', message: `Nexus answered HTTP ${res.status}.` },
  );
}
