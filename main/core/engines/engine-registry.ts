import type Docker from 'dockerode';
import type { AppStatus, EngineState } from '../../../shared/contract';
import { errorMessage, NexusError } from '../../../shared/errors';
import type { Disposable } from '../disposable';
import type { Logger } from '../log';
import {
  dockerUnavailable,
  DockerWatch,
  LOCAL_ENGINE,
  withTimeout,
  type AgentCliSource,
  type EngineProgress,
  type RemoteWatchDeps,
  type WorkspaceEngines,
} from '../docker';
import {
  agentCliVolumeFilled,
  agentCliVolumeName,
  copyImage,
  ensureAgentCliVolume,
  fillAgentCliVolume,
} from './engine-copies';
import { linkTo, type EngineLink, type ResolveSecret } from './engine-link';
import type { EngineRecord, EngineStore } from './engine-store';
import type { SshConnection } from './ssh-connection';
import { leastLoaded } from './placement';

export interface EngineFacts {
  version: string;
  cpus: number;
  memoryBytes: number;
}

export interface EngineLive {
  state: EngineState;
  reason: string | null;
  facts: EngineFacts | null;
}

const FACTS_TIMEOUT_MS = 3000;

/**
 * The Docker engines at run time: the local one core started with, and one client per remote engine
 * (its one SSH connection, or TLS), each watched like the local one (events stream, reconnect with
 * backoff, a sweep of its workspaces after each reconnect). Workspaces reach engines only through
 * the WorkspaceEngines port this implements.
 */
export class EngineRegistry implements WorkspaceEngines, Disposable {
  private readonly links = new Map<string, EngineLink>();
  private readonly watches = new Map<string, DockerWatch>();
  private readonly live = new Map<string, EngineLive>();
  private readonly copying = new Map<string, Promise<unknown>>();
  private watching: RemoteWatchDeps | null = null;
  private readonly removingHooks: ((engine: string) => Promise<void>)[] = [];

  constructor(
    private readonly deps: {
      store: EngineStore;
      local: Docker;
      localStatus: () => AppStatus['docker'];
      resolveSecret: ResolveSecret;
      log: Logger;
      owner: string;
      /** An engine's state or facts changed (the Engines page refreshes). */
      changed: (engineId: string) => void;
    },
  ) {}

  // ---- the WorkspaceEngines port ------------------------------------------------------------

  docker(engine: string): Docker {
    if (engine === LOCAL_ENGINE) return this.deps.local;
    return this.link(this.record(engine)).docker;
  }

  requireReachable(engine: string): void {
    const live = this.state(engine);
    if (live.state === 'reachable') return;
    if (live.state === 'host_key_changed') throw new NexusError('host_key_changed', live.reason ?? 'host key changed');
    if (live.state === 'pending_host_key')
      throw new NexusError(
        'conflict',
        `Engine "${this.record(engine).name}": confirm its host key first (Settings → Engines).`,
      );
    throw dockerUnavailable(`engine ${this.nameOf(engine)}: ${live.reason ?? 'not reachable'}`);
  }

  place(ref: string | undefined): string {
    if (ref !== undefined) return ref === LOCAL_ENGINE ? LOCAL_ENGINE : this.record(ref).id;
    const running = this.deps.store.runningSessionsByEngine();
    const candidates = [LOCAL_ENGINE, ...this.deps.store.list().map((e) => e.id)].filter(
      (id) => this.state(id).state === 'reachable',
    );
    // None reachable: the local engine, whose create then says why it cannot start.
    return leastLoaded(candidates, running) ?? LOCAL_ENGINE;
  }

  async ensureImage(engine: string, image: string, progress: EngineProgress): Promise<void> {
    if (engine === LOCAL_ENGINE) return;
    await this.once(`image:${engine}:${image}`, () =>
      copyImage(this.deps.local, this.docker(engine), image, progress, this.nameOf(engine)),
    );
  }

  async agentCli(engine: string, dir: string): Promise<AgentCliSource> {
    if (engine === LOCAL_ENGINE) return { bind: dir };
    const { name } = agentCliVolumeName(dir);
    await this.once(`cli-volume:${engine}:${name}`, () =>
      ensureAgentCliVolume(this.docker(engine), name, this.deps.owner),
    );
    return { volume: name };
  }

  async hasAgentCli(engine: string, dir: string): Promise<boolean> {
    return engine === LOCAL_ENGINE || agentCliVolumeFilled(this.docker(engine), agentCliVolumeName(dir).name);
  }

  async fillAgentCli(engine: string, dir: string, image: string, progress: EngineProgress): Promise<void> {
    if (engine === LOCAL_ENGINE) return;
    const cli = agentCliVolumeName(dir);
    await this.once(`cli:${engine}:${cli.name}`, () =>
      fillAgentCliVolume(this.docker(engine), cli, image, this.deps.owner, progress),
    );
  }

  follow(deps: RemoteWatchDeps): Disposable {
    this.watching = deps;
    for (const r of this.deps.store.list()) if (r.kind === 'tls' || r.hostKeyPinned) this.watch(r);
    return { dispose: () => this.dispose() };
  }

  // ---- for the engine service ---------------------------------------------------------------

  state(engine: string): EngineLive {
    if (engine === LOCAL_ENGINE) {
      const s = this.deps.localStatus();
      const prev = this.live.get(LOCAL_ENGINE);
      return {
        state: s.state === 'available' ? 'reachable' : 'unreachable',
        reason: s.reason,
        facts: prev?.facts ?? null,
      };
    }
    const r = this.record(engine);
    if (r.kind === 'ssh' && !r.hostKeyPinned)
      return { state: 'pending_host_key', reason: 'Confirm the host key shown to use this engine.', facts: null };
    return this.live.get(r.id) ?? { state: 'unreachable', reason: 'Not checked yet.', facts: null };
  }

  /** Asks the engine for its version, CPUs and memory (bounded); keeps the last answer. */
  async refreshFacts(engine: string): Promise<void> {
    try {
      const info = await withTimeout(this.docker(engine).info() as Promise<Record<string, unknown>>, FACTS_TIMEOUT_MS);
      const facts = {
        version: String(info.ServerVersion ?? ''),
        cpus: Number(info.NCPU ?? 0),
        memoryBytes: Number(info.MemTotal ?? 0),
      };
      const cur = this.live.get(engine);
      if (engine === LOCAL_ENGINE) this.live.set(engine, { state: 'reachable', reason: null, facts });
      else this.live.set(engine, { state: cur?.state ?? 'reachable', reason: cur?.reason ?? null, facts });
    } catch {
      // The watch reports reachability; facts stay as last seen.
    }
  }

  /** A remote engine was added with its key pinned (or by TLS): connect and watch it. */
  started(record: EngineRecord): void {
    if (this.watching) this.watch(record);
  }

  /** Connections made to an SSH engine so far (1 after the first contact; more after reconnects). */
  connectsOf(engine: string): number {
    return this.links.get(engine)?.ssh?.connects ?? 0;
  }

  /** An SSH engine's one connection (null: the local engine or a TLS one). */
  sshOf(engine: string): SshConnection | null {
    if (engine === LOCAL_ENGINE) return null;
    return this.link(this.record(engine)).ssh;
  }

  /** Cuts an SSH engine's connection (what a network drop does); the next call reconnects. */
  dropConnection(engine: string): void {
    this.links.get(engine)?.ssh?.drop();
  }

  /**
   * Runs before an engine's connection is closed for good (removal): what lives on that engine and only there
   * (its leaf container) is taken away while the engine can still be reached. A failure is logged, not thrown.
   */
  onRemoving(fn: (engine: string) => Promise<void>): void {
    this.removingHooks.push(fn);
  }

  /** The engine is removed: what lives only there goes first (onRemoving), then its watch and connection. */
  async removed(engine: string): Promise<void> {
    for (const fn of this.removingHooks)
      await fn(engine).catch((e: unknown) =>
        this.deps.log.warn('engine clean-up before removal failed', { engine, error: errorMessage(e) }),
      );
    this.watches.get(engine)?.dispose();
    this.watches.delete(engine);
    this.links.get(engine)?.dispose();
    this.links.delete(engine);
    this.live.delete(engine);
    this.watching?.onRemoved(engine);
  }

  dispose(): void {
    for (const w of this.watches.values()) w.dispose();
    for (const l of this.links.values()) l.dispose();
    this.watches.clear();
    this.links.clear();
  }

  // ---- helpers ------------------------------------------------------------------------------

  private watch(record: EngineRecord): void {
    const deps = this.watching;
    if (!deps || this.watches.has(record.id)) return;
    const id = record.id;
    const watch = new DockerWatch(this.link(record).docker, {
      status: { set: (_c, value) => this.setLive(id, value) },
      log: this.deps.log,
      owner: deps.owner,
      signals: deps.signals,
      engine: id,
      onEvent: (e) => deps.onEvent(id, e.labels),
      onReconnect: async () => {
        await this.refreshFacts(id);
        this.deps.changed(id);
        await deps.onReconnect(id);
      },
    });
    this.watches.set(id, watch);
    void watch.start();
  }

  private setLive(id: string, value: AppStatus['docker']): void {
    const hostKey = this.links.get(id)?.ssh?.hostKeyFailure ?? null;
    const state: EngineState = value.state === 'available' ? 'reachable' : hostKey ? 'host_key_changed' : 'unreachable';
    const reason = hostKey ? hostKey.message : value.state === 'available' ? null : value.reason;
    const prev = this.live.get(id);
    this.live.set(id, { state, reason, facts: prev?.facts ?? null });
    if (prev?.state !== state || prev.reason !== reason) this.deps.changed(id);
  }

  private link(record: EngineRecord): EngineLink {
    let l = this.links.get(record.id);
    if (!l) {
      l = linkTo(record, this.deps.resolveSecret);
      this.links.set(record.id, l);
    }
    return l;
  }

  private record(ref: string): EngineRecord {
    const r = this.deps.store.find(ref);
    if (!r) throw new NexusError('not_found', `No engine "${ref}".`);
    return r;
  }

  private nameOf(engine: string): string {
    return engine === LOCAL_ENGINE ? LOCAL_ENGINE : (this.deps.store.find(engine)?.name ?? engine);
  }

  /** One copy at a time per key; a failure is not kept (the next create tries again). */
  private once<T>(key: string, job: () => Promise<T>): Promise<T> {
    let p = this.copying.get(key) as Promise<T> | undefined;
    if (!p) {
      p = job().finally(() => this.copying.delete(key));
      this.copying.set(key, p);
    }
    return p;
  }
}
