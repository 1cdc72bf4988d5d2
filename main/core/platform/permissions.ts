import { subjects } from '../../../shared/platform-tools';

/** A NATS user as written into the managed server's authorization block. */
export interface NatsUser {
  user: string;
  password: string;
  permissions: { publish: { allow?: string[]; deny?: string[] }; subscribe: { allow?: string[]; deny?: string[] } };
}

/** Core itself: publishes replies to any inbox, subscribes to every run's request subject and the hook subjects. */
export const coreUser = (password: string): NatsUser => ({
  user: 'nexus-core',
  password,
  permissions: { publish: { allow: ['>'] }, subscribe: { allow: ['>'] } },
});

/**
 * A run may publish only its own request subject and subscribe only its own inbox prefix, so it
 * can neither call tools as another run nor read another run's replies. The server enforces it.
 */
export const runUser = (runId: string, password: string): NatsUser => ({
  user: runUserName(runId),
  password,
  permissions: {
    publish: { allow: [subjects.toolsFor(runId)] },
    subscribe: { allow: [`${subjects.inboxPrefixFor(runId)}.>`] },
  },
});
export const runUserName = (runId: string): string => `run-${runId}`;

/**
 * A workspace's hook forwarder: publishes its hook subject and its permission-request subject, and
 * subscribes only to its own replies prefix, on which it may never publish (only core can answer).
 */
export const hookUser = (workspaceId: string, password: string): NatsUser => ({
  user: hookUserName(workspaceId),
  password,
  permissions: {
    publish: { allow: [subjects.hooksFor(workspaceId), subjects.permissionsFor(workspaceId)] },
    subscribe: { allow: [`${subjects.permissionRepliesFor(workspaceId)}.>`] },
  },
});
export const hookUserName = (workspaceId: string): string => `hooks-${workspaceId}`;

/** Used once per config reload to learn when the server has applied it; may do nothing. */
export const probeUser = (generation: number, password: string): NatsUser => ({
  user: `probe-${generation}`,
  password,
  permissions: { publish: { deny: ['>'] }, subscribe: { deny: ['>'] } },
});
