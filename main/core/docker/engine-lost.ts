import type { Disposable } from '../disposable';

/** A call found a Docker engine gone (the engine's watch then reconnects). */
export interface EngineLost {
  reason: string;
  /** Which engine (absent: the local one). */
  engine?: string;
}

/** Where engine calls say an engine is gone and its watch hears it; the workspaces module's events carry it. */
export interface EngineLostSignals {
  on(name: 'engineLost', listener: (e: EngineLost) => void): Disposable;
  emit(name: 'engineLost', e: EngineLost): void;
}
