import { Signals } from '../signals';

/** What core's own modules hear from the sessions module (typed; never the redacted UI bus). */
export interface SessionSignalMap {
  /**
   * The session's agent ended a turn or its session (its Stop or SessionEnd hook, identity already
   * checked against the hook subject): what it changed may have moved.
   */
  agentStopped: { sessionId: string; workspaceId: string };
  /** The session's agent ended a turn (its Stop hook; not SessionEnd): review checkpoints the worktree. */
  turnEnded: { sessionId: string; workspaceId: string };
  /** The container's OOM killer took the session's agent; the session is now `error` with `reason`. */
  agentKilledForMemory: { sessionId: string; workspaceId: string; reason: string };
}

export class SessionSignals extends Signals<SessionSignalMap> {}
