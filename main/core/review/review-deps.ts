import type { ChangesSummary, MessageDelivery, Session } from '../../../shared/contract/sessions';
import { NexusError } from '../../../shared/errors';
import type { Disposable } from '../disposable';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import { type SessionsConfig, type SessionSignalMap, sessionPaths } from '../sessions';
import type { ReviewExec, ReviewTarget } from './container-git';

/** What review-that-talks-back uses of the sessions module: reads, its signals, and its consent-free message path. */
export interface ReviewSessions {
  get(ref: string): Promise<Session>;
  list(workspaceRef?: string): Promise<Session[]>;
  on<K extends 'turnEnded' | 'agentStopped'>(name: K, listener: (e: SessionSignalMap[K]) => void): Disposable;
  /** sessions.send_message: the inbox, never the terminal, so it can never answer a permission prompt. */
  sendMessage(ref: string, text: string): Promise<{ sessionId: string; status: MessageDelivery; note: string }>;
  /** sessions.create and sessions.delete, for attempts (a group of sessions from one prompt). */
  create(input: { workspace: string; name: string; initialMessage?: string; agent?: string }): Promise<Session>;
  delete(ref: string, opts?: { deleteBranch?: boolean; force?: boolean }): Promise<unknown>;
}

export type CheckpointRelay = (workspaceId: string, payload: string, timeoutMs: number) => Promise<string | null>;

/** A workspace as the runtime's store has it (no engine call). */
export interface ReviewWorkspace extends ReviewTarget {
  id: string;
  running: boolean;
}

export interface ReviewDeps {
  sessions: ReviewSessions;
  /** The runtime's one exec, its per-workspace queue (for what writes the clone) and its store read of a workspace. */
  runtime: ReviewExec & {
    find(ref: string): ReviewWorkspace | null;
    run<T>(workspaceId: string, job: () => Promise<T>): Promise<T>;
  };
  events: EventBus;
  log: Logger;
  config: SessionsConfig;
  /** Asks the workspace's hook relay for a checkpoint (platform/checkpoint-relay.ts); null or absent: the exec takes it. */
  relayCheckpoint?: CheckpointRelay;
  /** Ship's summary of a session's branch beside its base (absent: attempts show no diff stat). */
  changes?: (ref: string) => Promise<ChangesSummary>;
}

/** A session with its running workspace and its worktree, or a typed refusal saying why not. */
export async function sessionTarget(
  d: Pick<ReviewDeps, 'sessions' | 'runtime' | 'config'>,
  ref: string,
): Promise<{ session: Session; ws: ReviewWorkspace; worktree: string }> {
  const session = await d.sessions.get(ref);
  const ws = d.runtime.find(session.workspaceId);
  if (!ws?.running || !ws.containerId)
    throw new NexusError('conflict', `The workspace of session ${session.name} is not running; start it first.`);
  if (session.status === 'creating')
    throw new NexusError('conflict', `Session ${session.name} is still being created.`);
  return { session, ws, worktree: sessionPaths(d.config, session.id, session.name).worktree };
}

/** Runs jobs of one key after each other (a session's checkpoints, a workspace's radar), keys in parallel. */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, job: () => Promise<T>): Promise<T> {
    const next = (this.tails.get(key) ?? Promise.resolve()).then(job, job);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  async idle(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()]);
  }
}
