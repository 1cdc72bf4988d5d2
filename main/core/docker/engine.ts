import Docker from 'dockerode';
import { errorMessage, NexusError } from '../../../shared/errors';
import type { AppStatus } from '../../../shared/contract';

export const createDockerClient = (socketPath: string): Docker => new Docker({ socketPath });

/** Asks the engine whether it answers; never throws. */
export async function probeDocker(docker: Docker, timeoutMs = 3000): Promise<AppStatus['docker']> {
  try {
    const info = await withTimeout(docker.version(), timeoutMs);
    return { state: 'available', reason: `Docker ${info.Version} (API ${info.ApiVersion})` };
  } catch (e) {
    const msg = errorMessage(e);
    return { state: 'unavailable', reason: `Docker engine not reachable: ${msg}` };
  }
}

/** `p`, or a rejection after `ms`. */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e: unknown) => (clearTimeout(t), reject(e instanceof Error ? e : new Error(String(e)))),
    );
  });
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ENOENT',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTCONN',
]);

/** True when the error says the engine itself could not be reached (as opposed to a refused request). */
export function isEngineDown(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  const msg = e instanceof Error ? e.message : '';
  return /socket hang up|connect ENOENT|ECONNREFUSED|ECONNRESET|aborted|EPIPE/i.test(msg);
}

export const dockerUnavailable = (detail = 'the Docker engine is not reachable'): NexusError =>
  new NexusError('docker_unavailable', `Docker is unavailable: ${detail}. Start Docker; Nexus reconnects by itself.`);

/**
 * Maps a dockerode failure to a typed error: `docker_unavailable` when the engine is gone, else
 * `unavailable` with the engine's message.
 */
export function dockerFailure(e: unknown, action: string): NexusError {
  if (e instanceof NexusError) return e;
  if (isEngineDown(e)) return dockerUnavailable(`could not ${action}`);
  const json = (e as { json?: { message?: unknown } } | null)?.json;
  const detail = typeof json?.message === 'string' ? json.message : errorMessage(e);
  return new NexusError('unavailable', `Docker could not ${action}: ${detail.slice(0, 300)}`);
}
