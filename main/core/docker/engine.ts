import Docker from 'dockerode';
import type { AppStatus } from '../../../shared/contract';

export const createDockerClient = (socketPath: string): Docker => new Docker({ socketPath });

/** Asks the engine whether it answers; never throws. */
export async function probeDocker(docker: Docker, timeoutMs = 3000): Promise<AppStatus['docker']> {
  try {
    const info = await withTimeout(docker.version(), timeoutMs);
    return { state: 'available', reason: `Docker ${info.Version} (API ${info.ApiVersion})` };
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    return { state: 'unavailable', reason: `Docker engine not reachable: ${msg}` };
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e: unknown) => (clearTimeout(t), reject(e instanceof Error ? e : new Error(String(e)))),
    );
  });
}
