import { subjects } from '../../../../shared/platform-tools';
import type { NatsGrant } from '../permissions';

/** What a server needs to trust Nexus's users: the operator JWT and the account's (revocations included). */
export interface NatsTrust {
  operatorJwt: string;
  account: string;
  accountJwt: string;
}

export interface LeafNodeInput {
  /** Core's leafnode port as the leaf reaches it: through the engine's SSH remote forward, `nats://127.0.0.1:<port>`. */
  hubUrl: string;
  /** Path, where the leaf runs, of the creds file core made for it (`PlatformService.leafCredentials`). */
  credentials: string;
  /** Where the leaf listens for that engine's workers: its bridge gateway, never every interface. */
  listen: { host: string; port: number };
  trust: NatsTrust;
  pidFile?: string;
}

/**
 * The config of a leaf nats-server for one remote engine (Debian's nats-server 2.9 does). It trusts
 * Nexus's operator and loads the account's JWT, so a run's user JWT made by core is checked here,
 * at the leaf, with the run's own allow-lists: a worker on that engine can publish only as its run
 * and read only its own inbox, exactly as on core's server. Only the leaf dials out: one connection
 * to the hub's leafnode port, bound to the same account, with the leaf's own credential. Revoking a
 * run is a new account JWT and a reload on each leaf (the engines side re-renders this); until then
 * core refuses an ended run's calls anyway (the router reads the run's status on every call), and
 * every run JWT carries an expiry. JSON, like core's own config.
 */
export function leafNodeConfig(input: LeafNodeInput): string {
  if (['0.0.0.0', '::', '[::]', ''].includes(input.listen.host))
    throw new Error('A leaf node listens on one address (the engine’s bridge gateway), not every interface.');
  return JSON.stringify(
    {
      host: input.listen.host,
      port: input.listen.port,
      ...(input.pidFile ? { pid_file: input.pidFile } : {}),
      max_payload: 1024 * 1024,
      operator: input.trust.operatorJwt,
      resolver: 'MEMORY',
      resolver_preload: { [input.trust.account]: input.trust.accountJwt },
      leafnodes: {
        reconnect: 1,
        remotes: [{ url: input.hubUrl, credentials: input.credentials, account: input.trust.account }],
      },
    },
    null,
    2,
  );
}

/**
 * The hub-side user of one engine's leaf: it may bring in tool requests, hook events, permission
 * asks, message receipts and what ACP agents write (`publish`), and receive replies on runs' inboxes, hook permission
 * replies, the messages for its relays and what core writes to ACP agents (`subscribe`), nothing else. So a leaf
 * taken over (any local config, the same credential) can neither read requests nor forge a reply into a run's inbox
 * on core's side: leaf-node.test.ts. (Like the relays' messages, the ACP subjects are every workspace's: the grant is
 * the engine's, made before its workspaces; the workspace users at the leaf keep each relay and bridge to its own.)
 */
export const leafGrant = (engineId: string): NatsGrant => ({
  user: `leaf-${engineId}`,
  permissions: {
    publish: {
      allow: [
        subjects.toolsAll,
        subjects.hooksAll,
        subjects.permissionsAll,
        `${subjects.messageRepliesFor('*')}.>`,
        subjects.acpAll,
      ],
    },
    subscribe: {
      allow: [
        '_INBOX.*.>',
        `${subjects.permissionRepliesFor('*')}.>`,
        subjects.messagesAll,
        `${subjects.acpInPrefixFor('*')}.>`,
      ],
    },
  },
});
