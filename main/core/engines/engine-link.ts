import { connect as tlsConnect } from 'node:tls';
import type { Duplex } from 'node:stream';
import Docker from 'dockerode';
import { NexusError } from '../../../shared/errors';
import { DialAgent } from './dial-agent';
import type { EngineRecord } from './engine-store';
import { parseEngineUrl } from './engine-url';
import { SshConnection } from './ssh-connection';

export type ResolveSecret = (id: string) => Promise<{ value: string; kind: string }>;

/** A remote engine's dockerode and what carries it (the one SSH connection, or TLS sockets). */
export interface EngineLink {
  docker: Docker;
  /** Set for ssh:// engines. */
  ssh: SshConnection | null;
  dispose(): void;
}

const TLS_TIMEOUT_MS = 10_000;

async function secretOf(resolve: ResolveSecret, id: string | null, what: string, kinds: string[]): Promise<string> {
  if (!id) throw new NexusError('bad_request', `The engine has no ${what} secret.`);
  const s = await resolve(id);
  if (!kinds.includes(s.kind))
    throw new NexusError('bad_request', `The ${what} secret is not of kind ${kinds.join(' or ')}.`);
  return s.value;
}

/** Builds the client for a remote engine; an ssh:// one needs its host key pinned first. */
export function linkTo(record: EngineRecord, resolve: ResolveSecret, onDrop?: (reason: string) => void): EngineLink {
  const address = parseEngineUrl(record.url);
  let dial: () => Promise<Duplex>;
  let ssh: SshConnection | null = null;
  if (address.kind === 'ssh') {
    if (!record.hostKeyPinned || !record.hostKey)
      throw new NexusError('conflict', `Engine "${record.name}": confirm its host key first.`);
    const connection = new SshConnection(address, {
      privateKey: () => secretOf(resolve, record.keySecretId, 'SSH private key', ['ssh_private_key']),
      pinnedHostKey: record.hostKey,
      ...(onDrop ? { onDrop } : {}),
    });
    ssh = connection;
    dial = () => connection.channel();
  } else {
    dial = async () => {
      const [ca, cert, key] = await Promise.all([
        secretOf(resolve, record.caSecretId, 'CA certificate', ['tls_certificate']),
        secretOf(resolve, record.certSecretId, 'client certificate', ['tls_certificate']),
        secretOf(resolve, record.tlsKeySecretId, 'client key', ['tls_private_key']),
      ]);
      return new Promise<Duplex>((ok, fail) => {
        const socket = tlsConnect({ host: address.host, port: address.port, ca, cert, key, servername: address.host });
        const timer = setTimeout(
          () => socket.destroy(Object.assign(new Error('TLS handshake timed out'), { code: 'ETIMEDOUT' })),
          TLS_TIMEOUT_MS,
        );
        socket.once('secureConnect', () => (clearTimeout(timer), ok(socket)));
        socket.once('error', (e) => (clearTimeout(timer), fail(e)));
      });
    };
  }
  const agent = new DialAgent(dial);
  const docker = new Docker({ protocol: 'http', host: 'engine', port: 2375, agent } as Docker.DockerOptions);
  return {
    docker,
    ssh,
    dispose: () => {
      ssh?.dispose();
      agent.destroy();
    },
  };
}
