import type { Engine, OpParsedInput } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import { LOCAL_ENGINE } from '../docker';
import { readDockerContexts } from './docker-contexts';
import type { EngineRegistry } from './engine-registry';
import type { EngineRecord, EngineStore } from './engine-store';
import { parseEngineUrl } from './engine-url';
import { hostKeyChanged, offeredHostKey } from './ssh-connection';

const LOCAL_CREATED_AT = new Date(0).toISOString();

/**
 * Settings → Engines: the local engine and remote ones. An ssh:// engine is added in two steps —
 * first contact records the host key it offers (nothing is sent to it), the operator confirms that
 * key, and only then does Nexus sign in with the private key from the vault.
 */
export class EngineService {
  constructor(
    private readonly deps: {
      store: EngineStore;
      registry: EngineRegistry;
      events: EventBus;
      log: Logger;
      /** Metadata of a vault secret (its kind), without its value: works while the vault is locked. */
      secretKind: (id: string) => string | null;
      localUrl: string;
      dockerDir: string;
    },
  ) {}

  async list(): Promise<Engine[]> {
    const { registry, store } = this.deps;
    const ids = [LOCAL_ENGINE, ...store.list().map((r) => r.id)];
    await Promise.all(
      ids.filter((id) => registry.state(id).state === 'reachable').map((id) => registry.refreshFacts(id)),
    );
    return ids.map((id) => this.describe(id));
  }

  describe(id: string): Engine {
    const counts = this.deps.store.workspaceCounts().get(id) ?? { all: 0, running: 0 };
    const live = this.deps.registry.state(id);
    const r = id === LOCAL_ENGINE ? null : this.require(id);
    return {
      id,
      name: r?.name ?? LOCAL_ENGINE,
      kind: r?.kind ?? 'local',
      url: r?.url ?? this.deps.localUrl,
      hostKeyFingerprint: r?.hostKey ?? null,
      state: live.state,
      reason: live.reason,
      version: live.facts?.version ?? null,
      cpus: live.facts?.cpus ?? null,
      memoryBytes: live.facts?.memoryBytes ?? null,
      workspaces: counts.all,
      runningWorkspaces: counts.running,
      sshConnections: r?.kind === 'ssh' ? this.deps.registry.connectsOf(id) : null,
      createdAt: r?.createdAt ?? LOCAL_CREATED_AT,
    };
  }

  async add(input: OpParsedInput<'engines.add'>): Promise<Engine> {
    const address = parseEngineUrl(input.url);
    if (input.name === LOCAL_ENGINE || this.deps.store.find(input.name))
      throw new NexusError('conflict', `An engine named "${input.name}" already exists.`);
    let record: EngineRecord;
    if (address.kind === 'ssh') {
      this.requireKind(input.keySecretId, 'an SSH private key', ['ssh_private_key']);
      const hostKey = await offeredHostKey(address);
      record = this.deps.store.insert({
        name: input.name,
        kind: 'ssh',
        url: input.url.trim(),
        keySecretId: input.keySecretId ?? null,
        caSecretId: null,
        certSecretId: null,
        tlsKeySecretId: null,
        hostKey,
      });
    } else {
      this.requireKind(input.caSecretId, 'the CA certificate', ['tls_certificate']);
      this.requireKind(input.certSecretId, 'the client certificate', ['tls_certificate']);
      this.requireKind(input.tlsKeySecretId, 'the client key', ['tls_private_key']);
      record = this.deps.store.insert({
        name: input.name,
        kind: 'tls',
        url: input.url.trim(),
        keySecretId: null,
        caSecretId: input.caSecretId ?? null,
        certSecretId: input.certSecretId ?? null,
        tlsKeySecretId: input.tlsKeySecretId ?? null,
        hostKey: null,
      });
      this.deps.registry.started(record);
    }
    this.deps.log.info('engine added', { engine: record.id, name: record.name, kind: record.kind });
    return this.changed(record.id);
  }

  /** Pins the key shown at first contact, after checking the host still offers exactly that one. */
  async confirmHostKey(ref: string, hostKey: string): Promise<Engine> {
    const r = this.require(ref);
    if (r.kind !== 'ssh') throw new NexusError('bad_request', `Engine "${r.name}" is not reached over SSH.`);
    if (r.hostKeyPinned) {
      if (r.hostKey !== hostKey) throw hostKeyChanged(r.hostKey ?? '?', hostKey);
      return this.describe(r.id);
    }
    if (r.hostKey !== hostKey)
      throw new NexusError('conflict', `That is not the key engine "${r.name}" offered (${r.hostKey ?? 'none'}).`);
    const address = parseEngineUrl(r.url);
    if (address.kind !== 'ssh') throw new NexusError('internal', 'ssh engine with a non-ssh address');
    const now = await offeredHostKey(address);
    if (now !== hostKey) throw hostKeyChanged(hostKey, now);
    const pinned = this.deps.store.pinHostKey(r.id, hostKey);
    this.deps.registry.started(pinned);
    this.deps.log.info('engine host key pinned', { engine: r.id, hostKey });
    return this.changed(r.id);
  }

  async remove(ref: string): Promise<{ removed: true; id: string }> {
    if (ref === LOCAL_ENGINE) throw new NexusError('bad_request', 'The local engine cannot be removed.');
    const r = this.require(ref);
    const counts = this.deps.store.workspaceCounts().get(r.id);
    if (counts && counts.all > 0)
      throw new NexusError('conflict', `${counts.all} workspace(s) live on engine "${r.name}"; delete them first.`);
    await this.deps.registry.removed(r.id);
    this.deps.store.delete(r.id);
    this.deps.events.emit('engines.changed', { engine: null, removedId: r.id });
    return { removed: true, id: r.id };
  }

  contexts() {
    return { contexts: readDockerContexts(this.deps.dockerDir) };
  }

  /** Pushes the engine's current row to the Engines page. */
  changed(id: string): Engine {
    const e = this.describe(id);
    this.deps.events.emit('engines.changed', { engine: e });
    return e;
  }

  private require(ref: string): EngineRecord {
    const r = this.deps.store.find(ref);
    if (!r) throw new NexusError('not_found', `No engine "${ref}".`);
    return r;
  }

  private requireKind(id: string | undefined, what: string, kinds: string[]): void {
    if (!id) throw new NexusError('bad_request', `Name the vault secret holding ${what}.`);
    const kind = this.deps.secretKind(id);
    if (!kind) throw new NexusError('not_found', `No secret "${id}" in the vault.`);
    if (!kinds.includes(kind))
      throw new NexusError('bad_request', `Secret "${id}" is not ${what} (its kind is ${kind}).`);
  }
}
