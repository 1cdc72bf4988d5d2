import { subjects } from '../../../shared/platform-tools';

/** Who may publish and subscribe to what: a NATS user before it is signed (nats/identity.ts issues it). */
export interface NatsGrant {
  user: string;
  permissions: { publish: { allow?: string[]; deny?: string[] }; subscribe: { allow?: string[]; deny?: string[] } };
}

/** An issued user: its grant, its bearer user JWT (`password`, the one secret), its public key and expiry. */
export interface NatsUser extends NatsGrant {
  password: string;
  publicKey: string;
  /** Unix seconds; null = until revoked. */
  exp: number | null;
}

/** Core itself: publishes replies to any inbox, subscribes to every run's request subject and the hook subjects. */
export const coreGrant: NatsGrant = {
  user: 'nexus-core',
  permissions: { publish: { allow: ['>'] }, subscribe: { allow: ['>'] } },
};

/**
 * A run may publish only its own request subject and subscribe only its own inbox prefix, so it
 * can neither call tools as another run nor read another run's replies. The server enforces it.
 */
export const runGrant = (runId: string): NatsGrant => ({
  user: runUserName(runId),
  permissions: {
    publish: { allow: [subjects.toolsFor(runId)] },
    subscribe: { allow: [`${subjects.inboxPrefixFor(runId)}.>`] },
  },
});
export const runUserName = (runId: string): string => `run-${runId}`;

/**
 * A workspace's hook relay (and its ACP sessions' bridges): publishes its hook subject, its permission-request
 * subject, answers to the messages and checkpoints core asks of it (under its own reply prefixes) and what its ACP
 * agents write; subscribes to its permission replies, its workspace's messages and checkpoint asks and what core
 * writes to its ACP agents, on none of which it may publish (only core can answer a permission, send a message, ask
 * a checkpoint or prompt an agent).
 */
export const hookGrant = (workspaceId: string): NatsGrant => ({
  user: hookUserName(workspaceId),
  permissions: {
    publish: {
      allow: [
        subjects.hooksFor(workspaceId),
        subjects.permissionsFor(workspaceId),
        `${subjects.messageRepliesFor(workspaceId)}.>`,
        `${subjects.checkpointRepliesFor(workspaceId)}.>`,
        subjects.acpFor(workspaceId),
      ],
    },
    subscribe: {
      allow: [
        `${subjects.permissionRepliesFor(workspaceId)}.>`,
        subjects.messagesFor(workspaceId),
        subjects.checkpointsFor(workspaceId),
        `${subjects.acpInPrefixFor(workspaceId)}.>`,
      ],
    },
  },
});
export const hookUserName = (workspaceId: string): string => `hooks-${workspaceId}`;

/** Issued for one config reload and revoked by it: once it is refused, the server has applied that reload. */
export const probeGrant = (generation: number): NatsGrant => ({
  user: `probe-${generation}`,
  permissions: { publish: { deny: ['>'] }, subscribe: { deny: ['>'] } },
});
