import { execFile } from 'node:child_process';
import type Docker from 'dockerode';
import { realDocker } from '../../test/helpers/docker';
import { joinSecondEngine, startSecondEngine, type SecondEngine } from '../../test/helpers/second-engine';

/**
 * The Docker engines the soak places workspaces on: this machine's, and with `--engines 2` a second
 * dockerd behind an sshd on 127.0.0.1, made as the remote-engine tests make it
 * (test/helpers/second-engine.ts) and added to Nexus as an operator adds an engine. The soak looks at
 * each engine straight (its own client), never through core.
 */
export interface SoakEngine {
  /** `local`, or the name the remote engine was added under. */
  name: string;
  /** The soak's own client to the engine's daemon. */
  docker: Docker;
  /** The engine's daemon for the docker CLI (`-H`); null: the default one. */
  host: string | null;
}

export interface SoakEngines {
  list: SoakEngine[];
  /** The second engine (null with one engine). */
  remote: SecondEngine | null;
  /** The remote engine's id in Nexus, once joined. */
  remoteId: string | null;
  /** Adds the second engine to Nexus (its key in the vault, its host key confirmed), until reachable. */
  join(call: (op: string, input: unknown) => Promise<unknown>): Promise<void>;
  /** Stops the second dockerd and sshd and removes their files (its containers go with it). Idempotent. */
  dispose(): Promise<void>;
}

export const REMOTE_ENGINE = 'second';

export async function startSoakEngines(count: number): Promise<SoakEngines> {
  if (count !== 1 && count !== 2) throw new Error(`--engines must be 1 or 2, not ${count}`);
  const local: SoakEngine = { name: 'local', docker: realDocker(), host: null };
  if (count === 1)
    return { list: [local], remote: null, remoteId: null, join: () => Promise.resolve(), dispose: async () => {} };
  // Its own address pool: a remote-engine test may run its second dockerd beside it (10.201–10.204 are theirs).
  const remote = await startSecondEngine({ pool: '10.211.0.0/16' });
  let disposed: Promise<void> | null = null;
  const engines: SoakEngines = {
    list: [local, { name: REMOTE_ENGINE, docker: remote.docker, host: `unix://${remote.socket}` }],
    remote,
    remoteId: null,
    join: async (call) => {
      engines.remoteId = await joinSecondEngine(call as Parameters<typeof joinSecondEngine>[0], remote, REMOTE_ENGINE);
    },
    dispose: () => (disposed ??= remote.dispose()),
  };
  return engines;
}

/** `docker exec` in a container of an engine (the CLI, as an operator would); never throws. */
export function execIn(
  engine: SoakEngine,
  containerId: string,
  cmd: string[],
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      'docker',
      [...(engine.host ? ['-H', engine.host] : []), 'exec', containerId, ...cmd],
      { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, timeout: 120_000 },
      (err, stdout, stderr) =>
        resolve({ exitCode: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    ),
  );
}

/** The network a workspace container is on (its first), as its engine reports it. */
export async function networkOf(engine: SoakEngine, containerId: string): Promise<string> {
  const c = (await engine.docker.getContainer(containerId).inspect()) as {
    NetworkSettings: { Networks: Record<string, unknown> };
  };
  const name = Object.keys(c.NetworkSettings.Networks)[0];
  if (!name) throw new Error(`container ${containerId.slice(0, 12)} on engine ${engine.name} is on no network`);
  return name;
}
