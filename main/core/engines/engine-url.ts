import { NexusError } from '../../../shared/errors';

/** Where the Docker API is on an SSH engine: a unix socket forwarded over SSH, or `docker system dial-stdio`. */
export type DockerEndpoint = { kind: 'socket'; path: string } | { kind: 'dial-stdio' };

export type EngineAddress =
  | { kind: 'ssh'; host: string; port: number; username: string; endpoint: DockerEndpoint }
  | { kind: 'tls'; host: string; port: number };

export const DEFAULT_REMOTE_SOCKET = '/var/run/docker.sock';

/**
 * `ssh://user@host[:port]` (the engine's socket at /var/run/docker.sock, forwarded over SSH;
 * `?socket=/path` for another one, `?dial=stdio` to run `docker system dial-stdio` there, which honours
 * the remote's DOCKER_HOST) or `tcp://host[:port]` (TLS, port 2376 by default). Plain HTTP is refused.
 */
export function parseEngineUrl(raw: string): EngineAddress {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new NexusError(
      'bad_request',
      `"${raw}" is not an engine address; use ssh://user@host[:port] or tcp://host:2376.`,
    );
  }
  if (u.protocol !== 'ssh:' && u.protocol !== 'tcp:' && u.protocol !== 'https:')
    throw new NexusError(
      'bad_request',
      `Engines are reached by ssh:// or by tcp:// with TLS; "${u.protocol}//" is not supported (plain HTTP would give anyone on the network root on that host; unix:// is the local engine).`,
    );
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (!host) throw new NexusError('bad_request', `The engine address "${raw}" names no host.`);
  if (u.protocol === 'ssh:') {
    if (!u.username) throw new NexusError('bad_request', 'An ssh:// engine needs a user: ssh://user@host[:port].');
    if (u.password) throw new NexusError('bad_request', 'No password in the address: SSH engines sign in with a key.');
    const socket = u.searchParams.get('socket');
    const dial = u.searchParams.get('dial');
    if (socket !== null && !socket.startsWith('/'))
      throw new NexusError('bad_request', 'socket= must be an absolute path on the remote host.');
    if (dial !== null && dial !== 'stdio') throw new NexusError('bad_request', 'dial= takes only "stdio".');
    const endpoint: DockerEndpoint =
      dial === 'stdio' ? { kind: 'dial-stdio' } : { kind: 'socket', path: socket ?? DEFAULT_REMOTE_SOCKET };
    return {
      kind: 'ssh',
      host,
      port: u.port ? Number(u.port) : 22,
      username: decodeURIComponent(u.username),
      endpoint,
    };
  }
  return { kind: 'tls', host, port: u.port ? Number(u.port) : 2376 };
}
