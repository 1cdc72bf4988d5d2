import { errorMessage } from '../../../shared/errors';
import type Docker from 'dockerode';
import type { AppStatus } from '../../../shared/contract';
import type { Disposable } from '../disposable';
import type { Logger } from '../log';
import { probeDocker } from './engine';
import { ownerFilter } from './labels';
import type { EngineLostSignals } from './engine-lost';

export interface ContainerEvent {
  action: string;
  containerId: string;
  labels: Record<string, string>;
}

interface RawEvent {
  Type?: string;
  Action?: string;
  status?: string;
  id?: string;
  Actor?: { ID?: string; Attributes?: Record<string, string> };
}

/**
 * Keeps the Docker status live without polling: one events stream, filtered to this install's
 * containers. When the stream drops, the board says `unavailable` and a reconnect timer (with
 * backoff) probes until the engine answers again; then the stream reopens and `onReconnect` runs.
 */
export class DockerWatch implements Disposable {
  private stream: NodeJS.ReadableStream | null = null;
  private timer: NodeJS.Timeout | null = null;
  private backoffMs = 250;
  private disposed = false;
  private connecting = false;
  private lostSub: Disposable | null = null;

  constructor(
    private readonly docker: Docker,
    private readonly deps: {
      /** Where the engine's state goes: the status board for the local engine, the engine's record for a remote one. */
      status: { set(component: 'docker', value: AppStatus['docker']): void };
      log: Logger;
      /** The engine watched (absent: the local one); only its `engineLost` signals count. */
      engine?: string;
      owner: string;
      /** Any call that finds the engine gone says so here (`engineLost`); the watch then reconnects. */
      signals: EngineLostSignals;
      onEvent: (e: ContainerEvent) => void;
      onReconnect: () => Promise<void>;
      maxBackoffMs?: number;
    },
  ) {}

  /** Hears `engineLost`, then opens the stream now if the engine answers, else starts the reconnect timer. */
  async start(): Promise<void> {
    this.lostSub ??= this.deps.signals.on('engineLost', ({ reason, engine }) => {
      if (engine === this.deps.engine) this.lost(reason);
    });
    await this.connect();
  }

  get connected(): boolean {
    return this.stream !== null;
  }

  /** The engine is gone: mark it and start reconnecting. */
  lost(reason: string): void {
    if (this.disposed) return;
    this.dropStream();
    this.deps.status.set('docker', { state: 'unavailable', reason: `Docker engine not reachable: ${reason}` });
    this.schedule();
  }

  private schedule(): void {
    if (this.disposed || this.timer) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.deps.maxBackoffMs ?? 5000);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, delay);
  }

  private async connect(): Promise<void> {
    if (this.disposed || this.connecting || this.stream) return;
    this.connecting = true;
    try {
      const probe = await probeDocker(this.docker, 3000);
      if (probe.state !== 'available') {
        this.deps.status.set('docker', probe);
        this.schedule();
        return;
      }
      const stream = await this.docker.getEvents({
        filters: JSON.stringify({ type: ['container'], label: ownerFilter(this.deps.owner) }),
      } as unknown as Docker.GetEventsOptions);
      if (this.disposed) {
        (stream as unknown as { destroy?: () => void }).destroy?.();
        return;
      }
      this.attach(stream);
      this.backoffMs = 250;
      this.deps.status.set('docker', probe);
      await this.deps
        .onReconnect()
        .catch((e: unknown) => this.deps.log.warn('docker reconcile after connect failed', { error: e }));
    } catch (e) {
      this.deps.status.set('docker', {
        state: 'unavailable',
        reason: `Docker engine not reachable: ${errorMessage(e)}`,
      });
      this.schedule();
    } finally {
      this.connecting = false;
    }
  }

  private attach(stream: NodeJS.ReadableStream): void {
    this.stream = stream;
    let buffered = '';
    stream.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (line) this.dispatch(line);
      }
    });
    const onDrop = (): void => {
      if (this.stream !== stream) return;
      this.stream = null;
      this.lost('the events stream closed');
    };
    stream.on('end', onDrop);
    stream.on('close', onDrop);
    stream.on('error', onDrop);
  }

  private dispatch(line: string): void {
    let raw: RawEvent;
    try {
      raw = JSON.parse(line) as RawEvent;
    } catch {
      return;
    }
    const containerId = raw.Actor?.ID ?? raw.id;
    const action = raw.Action ?? raw.status;
    if (!containerId || !action) return;
    try {
      this.deps.onEvent({ action, containerId, labels: raw.Actor?.Attributes ?? {} });
    } catch (e) {
      this.deps.log.warn('docker event handler failed', { error: e });
    }
  }

  private dropStream(): void {
    const s = this.stream;
    this.stream = null;
    (s as unknown as { destroy?: () => void } | null)?.destroy?.();
  }

  dispose(): void {
    this.disposed = true;
    this.lostSub?.dispose();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.dropStream();
  }
}
