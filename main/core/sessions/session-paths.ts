import type { SessionsConfig } from './config';

/** Where a session lives in its workspace's container: its worktree and branch, its state dir, its launch script. */
export interface SessionPaths {
  worktree: string;
  branch: string;
  stateDir: string;
  launchScript: string;
}

/** The one branch rule: session `name` works on `nexus/<name>` (a deleted session's branch is picked up again). */
export const sessionBranch = (name: string): string => `nexus/${name}`;

export const sessionPaths = (config: SessionsConfig, sessionId: string, name: string): SessionPaths => ({
  worktree: `${config.worktreesDir}/${name}`,
  branch: sessionBranch(name),
  stateDir: `${config.stateDir}/${sessionId}`,
  launchScript: `${config.stateDir}/${sessionId}/launch.sh`,
});
