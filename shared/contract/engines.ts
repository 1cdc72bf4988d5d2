import { z } from 'zod';
import { operation } from './define';

/** `local` is the engine core started with (always present); `ssh` and `tls` are remote ones the operator added. */
export const EngineKind = z.enum(['local', 'ssh', 'tls']);
export type EngineKind = z.infer<typeof EngineKind>;

/**
 * `pending_host_key`: first contact gave a host key the operator has not confirmed yet (nothing was
 * sent to the host); `host_key_changed`: the host now shows another key than the pinned one (refused).
 */
export const EngineState = z.enum(['reachable', 'unreachable', 'pending_host_key', 'host_key_changed']);
export type EngineState = z.infer<typeof EngineState>;

/** Safe in a label and a URL segment: lowercase letters, digits, dashes. */
export const EngineName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,30}[a-z0-9]$|^[a-z0-9]$/, 'use 1-32 lowercase letters, digits and dashes')
  .describe('Engine name: lowercase letters, digits and dashes');

export const EngineRef = z.string().min(1).max(100).describe('Engine id or name');

export const Engine = z.object({
  id: z.string(),
  name: z.string(),
  kind: EngineKind,
  /** `unix:///var/run/docker.sock`, `ssh://user@host:port`, `tcp://host:2376`. */
  url: z.string(),
  /** The pinned SSH host key's fingerprint (`SHA256:…`), or the one offered on first contact while pending. */
  hostKeyFingerprint: z.string().nullable(),
  state: EngineState,
  reason: z.string().nullable(),
  /** From the engine's last answer. */
  version: z.string().nullable(),
  cpus: z.number().int().nullable(),
  memoryBytes: z.number().nullable(),
  workspaces: z.number().int(),
  runningWorkspaces: z.number().int(),
  /** SSH connections core made to it since it started: 1 after the first, one more per reconnect; null: local or TLS. */
  sshConnections: z.number().int().nullable(),
  createdAt: z.string(),
});
export type Engine = z.infer<typeof Engine>;

export const DockerContext = z.object({
  name: z.string(),
  host: z.string(),
  /** The context carries TLS material (ca/cert/key files under ~/.docker/contexts/tls). */
  tls: z.boolean(),
  skipTlsVerify: z.boolean(),
  current: z.boolean(),
});
export type DockerContext = z.infer<typeof DockerContext>;

const SecretRef = z.string().min(1).max(100);

export const engineOperations = {
  'engines.list': operation({
    summary: 'Docker engines workspaces can live on: the local one and remote ones, with reachability and size.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: z.object({ engines: z.array(Engine) }),
  }),
  'engines.add': operation({
    summary:
      'Add a remote engine by ssh://user@host[:port] (private key from the vault; the host key is returned to confirm) or tcp://host:2376 with TLS material from the vault.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z
      .object({
        name: EngineName,
        url: z.string().min(1).max(500).describe('ssh://user@host[:port][?socket=/path] or tcp://host:2376'),
        keySecretId: SecretRef.optional().describe('Vault secret (SSH private key) for ssh://'),
        caSecretId: SecretRef.optional().describe('Vault secret holding the CA certificate (tcp://)'),
        certSecretId: SecretRef.optional().describe('Vault secret holding the client certificate (tcp://)'),
        tlsKeySecretId: SecretRef.optional().describe('Vault secret holding the client key (tcp://)'),
      })
      .strict(),
    output: Engine,
  }),
  'engines.confirmHostKey': operation({
    summary: 'Pin the SSH host key shown at first contact; the engine is used only once its key is pinned.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ engine: EngineRef, fingerprint: z.string().min(1).max(200) }).strict(),
    output: Engine,
  }),
  'engines.remove': operation({
    summary: 'Forget a remote engine; refused while a workspace lives on it.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ engine: EngineRef }).strict(),
    output: z.object({ removed: z.literal(true), id: z.string() }),
  }),
  'engines.contexts': operation({
    summary: 'Docker contexts found in ~/.docker/contexts, to import one as an engine.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: z.object({ contexts: z.array(DockerContext) }),
  }),
};

export const engineEvents = {
  'engines.changed': z.object({ engine: Engine.nullable(), removedId: z.string().optional() }),
};
