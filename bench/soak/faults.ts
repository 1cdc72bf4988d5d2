import type { SoakCore } from './core-handle';
import { networkOf, type SoakEngine } from './engines';
import { natsPid } from './resources';

/** The faults the soak puts on its schedule, in this order (one engine). */
export const FAULTS = ['core-kill', 'nats-kill', 'container-restart', 'network-cut'] as const;
/** With a second engine, after those: its leaf nats-server killed, its SSH connection cut. */
export const REMOTE_FAULTS = ['leaf-kill', 'ssh-cut'] as const;
/** Not on the default schedule: the leaf container removed (core has to make it again). */
export const EXTRA_FAULTS = ['leaf-remove'] as const;
export type FaultKind = (typeof FAULTS)[number] | (typeof REMOTE_FAULTS)[number] | (typeof EXTRA_FAULTS)[number];
export const ALL_FAULTS: readonly FaultKind[] = [...FAULTS, ...REMOTE_FAULTS, ...EXTRA_FAULTS];
/** Faults on one workspace container: with two engines each is put on a container of each engine in turn. */
export const CONTAINER_FAULTS: readonly FaultKind[] = ['container-restart', 'network-cut'];
/** Faults that need the second engine. */
const NEEDS_REMOTE: readonly FaultKind[] = [...REMOTE_FAULTS, ...EXTRA_FAULTS];

export interface FaultRecord {
  kind: FaultKind;
  /** Date.now() when it began and when the system was whole again (the fault undone). */
  at: number;
  undoneAt: number;
  /** The engine it hit (container, network, leaf and SSH faults); none: core's side, every engine. */
  engine?: string;
  /** The workspace it hit (container and network faults). */
  workspace?: string;
  /** ms from the fault undone until every session converged; -1: not within the wait. */
  convergedMs: number;
  detail: string;
}

/** One entry of the schedule: the fault and the engine it is put on (null: core's side). */
export interface ScheduledFault {
  kind: FaultKind;
  engine: string | null;
}

/**
 * The schedule for `kinds` on `engines`: a container fault once per engine (this machine's first),
 * the remote faults on the second engine, core's faults once.
 */
export function schedule(kinds: FaultKind[], engines: string[]): ScheduledFault[] {
  const remote = engines[1] ?? null;
  return kinds.flatMap((kind): ScheduledFault[] => {
    if (CONTAINER_FAULTS.includes(kind)) return engines.map((engine) => ({ kind, engine }));
    if (NEEDS_REMOTE.includes(kind)) {
      if (!remote) throw new Error(`fault ${kind} needs a second engine (--engines 2)`);
      return [{ kind, engine: remote }];
    }
    return [{ kind, engine: null }];
  });
}

export interface FaultTarget {
  dataDir: string;
  core: SoakCore;
  /** The engine a container fault hits, and its workspace (name, container) there. */
  engine: SoakEngine | null;
  workspace: () => Promise<{ name: string; containerId: string }>;
  /** Before a container restart: read what its relay counted (the restart zeroes it). */
  beforeContainerRestart: (workspace: string) => Promise<void>;
  /** The second engine's SSH connections cut (its sshd's per-connection processes); and logins so far. */
  cutSsh?: () => void;
  sshLogins?: () => number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Inspected {
  Id: string;
  State: { Running: boolean; Pid: number; StartedAt: string };
}

/** The engine's leaf container (core runs one per remote engine; label nexus.leaf.engine). */
async function leafOf(engine: SoakEngine): Promise<Inspected> {
  const [c] = await engine.docker.listContainers({ all: true, filters: { label: ['nexus.leaf.engine'] } });
  if (!c) throw new Error(`no leaf container on engine ${engine.name}`);
  return (await engine.docker.getContainer(c.Id).inspect()) as Inspected;
}

/** Until `ok` holds (every 250 ms), at most `ms`; the time it took, or -1. */
async function until(ok: () => Promise<boolean>, ms: number): Promise<number> {
  const t = Date.now();
  while (Date.now() - t < ms) {
    if (await ok().catch(() => false)) return Date.now() - t;
    await sleep(250);
  }
  return -1;
}

/** Puts one fault on the running system and undoes it; the record lacks only the convergence time. */
export async function inflict(
  kind: FaultKind,
  t: FaultTarget,
  cutMs = 30_000,
): Promise<Omit<FaultRecord, 'convergedMs'>> {
  const at = Date.now();
  const engine = t.engine?.name;
  const on = (): { engine?: string } => (engine ? { engine } : {});
  switch (kind) {
    case 'core-kill': {
      await t.core.kill();
      await sleep(2000);
      await t.core.start();
      return { kind, at, undoneAt: Date.now(), detail: 'core SIGKILLed, started again on the same data dir' };
    }
    case 'nats-kill': {
      const pid = natsPid(t.dataDir);
      if (!pid) return { kind, at, undoneAt: Date.now(), detail: 'no nats-server pid found: not killed' };
      process.kill(pid, 'SIGKILL');
      return { kind, at, undoneAt: Date.now(), detail: `nats-server ${pid} SIGKILLed (core starts it again)` };
    }
    case 'container-restart': {
      const ws = await t.workspace();
      await t.beforeContainerRestart(ws.name);
      await t.engine!.docker.getContainer(ws.containerId).restart({ t: 5 });
      return {
        kind,
        at,
        undoneAt: Date.now(),
        ...on(),
        workspace: ws.name,
        detail: `workspace container restarted on engine ${engine}`,
      };
    }
    case 'network-cut': {
      const ws = await t.workspace();
      const name = await networkOf(t.engine!, ws.containerId);
      const net = t.engine!.docker.getNetwork(name);
      await net.disconnect({ Container: ws.containerId, Force: true });
      await sleep(cutMs);
      await net.connect({ Container: ws.containerId });
      return {
        kind,
        at,
        undoneAt: Date.now(),
        ...on(),
        workspace: ws.name,
        detail: `container cut from ${name} on engine ${engine} for ${cutMs / 1000} s`,
      };
    }
    case 'leaf-kill': {
      // A crash, not a stop: SIGKILL to the leaf's nats-server from this machine (the second engine runs
      // here), so its container exits as after a crash and its restart policy (unless-stopped) starts it
      // again; it dials core over the SSH connection's forward. `docker kill` would turn the policy off.
      const before = await leafOf(t.engine!);
      if (!before.State.Running || !before.State.Pid) throw new Error('the leaf container is not running');
      process.kill(before.State.Pid, 'SIGKILL');
      const back = await until(async () => {
        const now = await leafOf(t.engine!);
        return now.State.Running && now.State.StartedAt !== before.State.StartedAt;
      }, 120_000);
      return {
        kind,
        at,
        undoneAt: Date.now(),
        ...on(),
        detail: `leaf nats-server ${before.State.Pid} SIGKILLed; its container ${
          back < 0 ? 'NOT running again within 120 s' : `running again in ${seconds(back)} (restart policy)`
        }`,
      };
    }
    case 'leaf-remove': {
      const before = await leafOf(t.engine!);
      await t.engine!.docker.getContainer(before.Id).remove({ force: true });
      const back = await until(async () => (await leafOf(t.engine!)).State.Running, 300_000);
      return {
        kind,
        at,
        undoneAt: Date.now(),
        ...on(),
        detail: `leaf container removed (docker rm -f); ${
          back < 0 ? 'core did NOT make it again within 300 s' : `core made it again in ${seconds(back)}`
        }`,
      };
    }
    case 'ssh-cut': {
      const logins = t.sshLogins?.() ?? 0;
      t.cutSsh?.();
      const back = await until(() => Promise.resolve((t.sshLogins?.() ?? 0) > logins), 120_000);
      return {
        kind,
        at,
        undoneAt: at,
        ...on(),
        detail: `every SSH connection to engine ${engine} cut (sshd's per-connection processes killed); core ${
          back < 0 ? 'did NOT sign in again within 120 s' : `signed in again in ${seconds(back)}`
        }`,
      };
    }
  }
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
