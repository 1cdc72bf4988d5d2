import type Docker from 'dockerode';
import type { NexusError } from '../../../shared/errors';
import { dockerFailure, isEngineDown } from './engine';
import { isOwnedBy, LABEL, ownerFilter } from './labels';
import { ensureWorkerNetwork } from './network';
import { imageExists, statusOf } from './worker-image';
import type { EngineLostSignals } from './engine-lost';

export interface ContainerSummary {
  Id: string;
  Names: string[];
  Image: string;
  State: string;
  Labels: Record<string, string>;
}

/**
 * The engine calls of the workspace lifecycle (containers, volumes, network), each failure typed by
 * dockerFailure; a call that finds the engine gone says so on `engineLost`, and the watch reconnects.
 */
export class WorkspaceContainers {
  constructor(
    readonly docker: Docker,
    private readonly deps: {
      owner: string;
      network: string;
      signals: EngineLostSignals;
      /** The engine these calls go to (absent: the local one). */
      engine?: string;
    },
  ) {}

  failure(e: unknown, action: string): NexusError {
    const f = dockerFailure(e, action);
    if (f.code === 'docker_unavailable' || isEngineDown(e))
      this.deps.signals.emit('engineLost', {
        reason: action,
        ...(this.deps.engine ? { engine: this.deps.engine } : {}),
      });
    return f;
  }

  async call<T>(action: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw this.failure(e, action);
    }
  }

  /** This install's containers; throws the raw engine error (callers that tolerate it catch it). */
  async owned(): Promise<ContainerSummary[]> {
    const list = (await this.docker.listContainers({
      all: true,
      filters: { label: ownerFilter(this.deps.owner) },
    })) as ContainerSummary[];
    return list.filter((c) => isOwnedBy(c.Labels, this.deps.owner));
  }

  ownedOrThrow(): Promise<ContainerSummary[]> {
    return this.call('list containers', () => this.owned());
  }

  imageExists(image: string): Promise<boolean> {
    return imageExists(this.docker, image).catch((e: unknown) => {
      throw this.failure(e, 'look up the image');
    });
  }

  /** The workers' network, created on first use (a no-op for the engine's own networks). */
  ensureNetwork(): Promise<void> {
    return this.call('prepare the worker network', () => ensureWorkerNetwork(this.docker, this.deps.network));
  }

  async removeContainer(id: string): Promise<void> {
    try {
      await this.docker.getContainer(id).remove({ force: true, v: true });
    } catch (e) {
      if (statusOf(e) !== 404 && statusOf(e) !== 409) throw this.failure(e, 'remove the container');
    }
  }

  async removeVolume(name: string): Promise<void> {
    try {
      await this.docker.getVolume(name).remove();
    } catch (e) {
      if (statusOf(e) !== 404) throw this.failure(e, 'remove the workspace volume');
    }
  }

  async removeVolumesOf(workspaceId: string): Promise<void> {
    const { Volumes } = await this.call('list volumes', () =>
      this.docker.listVolumes({
        filters: { label: [...ownerFilter(this.deps.owner), `${LABEL.workspaceId}=${workspaceId}`] },
      }),
    );
    for (const v of Volumes ?? []) await this.removeVolume(v.Name);
  }
}
