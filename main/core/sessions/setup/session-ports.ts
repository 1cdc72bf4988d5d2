import { NexusError } from '../../../../shared/errors';
import type { Db } from '../../store';
import { SessionPortStore } from './session-port-store';

/** Each session's ports: `PORT` is the first of a block of PORTS_PER_SESSION, NEXUS_PORTS names the block. */
export const PORTS_PER_SESSION = 10;
export const FIRST_PORT = 20_000;
const BLOCKS = 1_000;

export interface SessionPortBlock {
  first: number;
  last: number;
}

/**
 * Port blocks per session, unique within an engine (so no two sessions there start a dev server on one port,
 * even on the host network) and kept across restarts (migration 032). A deleted session's block goes with its row.
 */
export class SessionPorts {
  private readonly store: SessionPortStore;

  constructor(db: Db) {
    this.store = new SessionPortStore(db);
  }

  of(sessionId: string): SessionPortBlock | null {
    const first = this.store.firstPortOf(sessionId);
    return first === null ? null : block(first);
  }

  /** The session's block, allocated (the lowest free one on its engine) when it has none. */
  ensure(sessionId: string, engine: string): SessionPortBlock {
    const have = this.of(sessionId);
    if (have) return have;
    const taken = this.store.takenOn(engine);
    for (let i = 0; i < BLOCKS; i++) {
      const first = FIRST_PORT + i * PORTS_PER_SESSION;
      if (taken.has(first)) continue;
      this.store.add(sessionId, engine, first);
      return block(first);
    }
    throw new NexusError('conflict', `Every one of the ${BLOCKS} port blocks on engine ${engine} is taken.`);
  }

  /** The environment a session's processes get. */
  static env(b: SessionPortBlock): Record<string, string> {
    return { PORT: String(b.first), NEXUS_PORTS: `${b.first}-${b.last}` };
  }
}

const block = (first: number): SessionPortBlock => ({ first, last: first + PORTS_PER_SESSION - 1 });
