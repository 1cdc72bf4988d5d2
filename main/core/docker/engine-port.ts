import type Docker from 'dockerode';
import type { AppStatus } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';
import type { Disposable } from '../disposable';
import type { Logger } from '../log';
import { dockerUnavailable } from './engine';
import type { EngineLostSignals } from './engine-lost';

/** The engine core starts with; every workspace created before engines existed lives there. */
export const LOCAL_ENGINE = 'local';

export type EngineProgress = (step: string, fraction?: number) => void;

/** How the agent CLI reaches a container: a host directory bind-mounted, or a volume on that engine. */
export type AgentCliSource = { bind: string } | { volume: string };

/**
 * What the workspaces module needs of the Docker engines (main/core/engines implements it): each
 * workspace's dockerode by its `engine`, whether that engine answers now, where a new workspace goes,
 * and the worker image and agent CLI made available on a remote engine.
 */
export interface WorkspaceEngines {
  docker(engine: string): Docker;
  /** Throws `docker_unavailable` (or `host_key_changed`) when the engine does not answer now. */
  requireReachable(engine: string): void;
  /** The engine id for a create: the named one (id or name), else the default placement. */
  place(ref: string | undefined): string;
  /** Makes `image` (built on the local engine) present on `engine`. */
  ensureImage(engine: string, image: string, progress: EngineProgress): Promise<void>;
  /**
   * The agent CLI for a container on `engine`, from the host directory that holds it: the directory itself on the
   * local engine; on a remote one its volume there, empty until the first session of its kind fills it (fillAgentCli).
   */
  agentCli(engine: string, dir: string): Promise<AgentCliSource>;
  /** Whether the agent CLI's files are on `engine` (the local one: always). */
  hasAgentCli(engine: string, dir: string): Promise<boolean>;
  /** Makes the agent CLI's files present in its volume on `engine` (a copy once per engine and version; local: none). */
  fillAgentCli(engine: string, dir: string, image: string, progress: EngineProgress): Promise<void>;
  /** Watches every remote engine (now and as they are added): its container events and each (re)connect. */
  follow?(deps: RemoteWatchDeps): Disposable;
}

export interface RemoteWatchDeps {
  owner: string;
  signals: EngineLostSignals;
  log: Logger;
  onEvent(engine: string, labels: Record<string, string>): void;
  onReconnect(engine: string): Promise<void>;
  /** The engine is gone for good (removed): forget its client. */
  onRemoved(engine: string): void;
}

/** The one-engine case (tests, and core before any remote engine): everything is the local engine. */
export function localEngineOnly(docker: Docker, status: () => AppStatus['docker']): WorkspaceEngines {
  const only = (engine: string): void => {
    if (engine !== LOCAL_ENGINE) throw new NexusError('not_found', `No engine "${engine}".`);
  };
  return {
    docker: (engine) => (only(engine), docker),
    requireReachable: (engine) => {
      only(engine);
      const s = status();
      if (s.state !== 'available') throw dockerUnavailable(s.reason.replace(/^Docker engine not reachable: /, ''));
    },
    place: (ref) => (ref === undefined ? LOCAL_ENGINE : (only(ref), LOCAL_ENGINE)),
    ensureImage: async (engine) => only(engine),
    agentCli: async (engine, dir) => (only(engine), { bind: dir }),
    hasAgentCli: async (engine) => (only(engine), true),
    fillAgentCli: async (engine) => only(engine),
  };
}
