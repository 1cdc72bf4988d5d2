import { realDocker } from '../../test/helpers/docker';
import type { SoakCore } from './core-handle';
import { natsPid } from './resources';

/** The faults the soak puts on its schedule, in this order. */
export const FAULTS = ['core-kill', 'nats-kill', 'container-restart', 'network-cut'] as const;
export type FaultKind = (typeof FAULTS)[number];

export interface FaultRecord {
  kind: FaultKind;
  /** Date.now() when it began and when the system was whole again (the fault undone). */
  at: number;
  undoneAt: number;
  /** The workspace it hit (container and network faults). */
  workspace?: string;
  /** ms from the fault undone until every session converged; -1: not within the wait. */
  convergedMs: number;
  detail: string;
}

export interface FaultTarget {
  dataDir: string;
  core: SoakCore;
  network: string;
  /** The workspace (name, container) the container faults hit. */
  workspace: () => Promise<{ name: string; containerId: string }>;
  /** Before a container restart: read what its relay counted (the restart zeroes it). */
  beforeContainerRestart: (workspace: string) => Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Puts one fault on the running system and undoes it; the record lacks only the convergence time. */
export async function inflict(
  kind: FaultKind,
  t: FaultTarget,
  cutMs = 30_000,
): Promise<Omit<FaultRecord, 'convergedMs'>> {
  const at = Date.now();
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
      await realDocker().getContainer(ws.containerId).restart({ t: 5 });
      return { kind, at, undoneAt: Date.now(), workspace: ws.name, detail: 'workspace container restarted' };
    }
    case 'network-cut': {
      const ws = await t.workspace();
      const net = realDocker().getNetwork(t.network);
      await net.disconnect({ Container: ws.containerId, Force: true });
      await sleep(cutMs);
      await net.connect({ Container: ws.containerId });
      return {
        kind,
        at,
        undoneAt: Date.now(),
        workspace: ws.name,
        detail: `container cut from ${t.network} for ${cutMs / 1000} s`,
      };
    }
  }
}
