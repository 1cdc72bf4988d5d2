import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { OpInput, OpName, OpOutput } from '../../shared/contract';
import { errorMessage, RemoteError, WireError } from '../../shared/errors';
import { createCore } from '../core';
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
 * key lives in that process); otherwise core is opened on the data dir for this one call.
 */
export async function operatorCall<K extends OpName>(
  dataDir: string,
  appRoot: string,
  op: K,
  input: OpInput<K>,
): Promise<OpOutput<K>> {
  const serveFile = readServeFile(dataDir);
  if (serveFile) {
    let res: Response | null = null;
    try {
      res = await fetch(`${serveFile.url}/api/rpc/${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${serveFile.token}` },
        body: JSON.stringify(input),
      });
    } catch {
      res = null; // serve.json left behind by a crashed app: fall through to a local core.
    }
    if (res) {
      const body = (await res.json()) as { result?: OpOutput<K>; error?: unknown };
      if (res.ok && body.result !== undefined) return body.result;
      const error = WireError.safeParse(body.error);
      throw new RemoteError(
        error.success ? error.data : { code: 'internal', message: `Nexus answered HTTP ${res.status}.` },
      );
    }
  }
  const core = await createCore({}, nodePorts(dataDir, appRoot));
  try {
    return await core.dispatcher.call(op, input, operatorContext('cli'));
  } catch (e) {
    throw new CliError(errorMessage(e));
  } finally {
    await core.dispose();
  }
}
