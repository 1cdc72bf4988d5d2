import { NexusError } from '../../../shared/errors';
import type { Redactor } from '../redact';
import type { ManagedNats } from './managed-server';
import { hookGrant, hookUserName, runGrant, runUserName } from './permissions';
import { jwtSecret } from './nats/auth';
import { leafGrant, type NatsTrust } from './nats/leaf-node';

/**
 * How long a run's user JWT is valid: the server drops its connection then, whatever happens to core
 * (ending the run revokes it sooner). Longer than any session is expected to run.
 */
const RUN_USER_TTL_MS = 30 * 24 * 3_600_000;

/** A NATS user's name and its secret (a bearer user JWT, nats/identity.ts), as handed to a worker. */
export interface IssuedUser {
  user: string;
  password: string;
}

/**
 * The NATS users core issues on its managed server: one per run, one hook publisher per workspace,
 * one leaf credential per remote engine (permissions.ts has their grants). Every secret is known to
 * the redactor before the server accepts it, and stays masked until the server has dropped the user.
 */
export class NatsUsers {
  /** Passwords of live run and hook users, by NATS user name: unregistered from the redactor when removed. */
  private readonly passwords = new Map<string, string>();

  constructor(
    private readonly deps: {
      redactor: Redactor;
      /** Core's managed server as of now (null: not running). */
      server: () => ManagedNats | null;
    },
  ) {}

  /**
   * The users a previous core left in the server's config (managed-server.ts): their passwords are
   * masked and kept. Returns the runs whose user survived.
   */
  keepCarried(): string[] {
    const kept: string[] = [];
    for (const u of this.deps.server()?.users ?? []) {
      this.deps.redactor.addSecret(jwtSecret(u.password));
      this.passwords.set(u.user, u.password);
      if (u.user.startsWith('run-')) kept.push(u.user.slice('run-'.length));
    }
    return kept;
  }

  /** A run's own user: publish its request subject only, subscribe its inbox only (null: no server). */
  async addRun(runId: string): Promise<IssuedUser | null> {
    const server = this.deps.server();
    if (!server) return null;
    return this.issue(server, runUserName(runId), runGrant(runId), RUN_USER_TTL_MS);
  }

  /** Its user is removed and the server drops its connection. */
  removeRun(runId: string): Promise<void> {
    return this.remove(runUserName(runId));
  }

  /** A publish-only user for one workspace's hook forwarder (null: no server). */
  async addHookPublisher(workspaceId: string): Promise<IssuedUser | null> {
    const server = this.deps.server();
    if (!server) return null;
    // One user per workspace: a session already running keeps the password it was handed.
    const kept = this.passwords.get(hookUserName(workspaceId));
    if (kept) return { user: hookUserName(workspaceId), password: kept };
    return this.issue(server, hookUserName(workspaceId), hookGrant(workspaceId), null);
  }

  removeHookPublisher(workspaceId: string): Promise<void> {
    return this.remove(hookUserName(workspaceId));
  }

  /**
   * For one remote engine's leaf node (nats/leaf-node.ts): the creds file of its one connection to
   * core's leafnode port (its seed is registered with the redactor), the port, and the trust the
   * leaf loads. A second call replaces (and revokes) the engine's previous credential.
   */
  async leafCredentials(engineId: string): Promise<{ creds: string; hubPort: number; trust: NatsTrust }> {
    const server = this.deps.server();
    const port = server?.leafPort;
    if (!server || !port) throw new NexusError('nats_unavailable', 'Leaf nodes are off (nats.leafPort is not set).');
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(engineId))
      throw new NexusError('bad_request', 'An engine id must be letters, digits, dashes and underscores.');
    const { user, creds } = server.issueCreds(leafGrant(engineId), null);
    const seed = /SU[A-Z2-7]+/.exec(creds)?.[0];
    if (seed) this.deps.redactor.addSecret(seed);
    await server.addUsers(user);
    return { creds, hubPort: port, trust: server.trust };
  }

  /** Revokes an engine's leaf credential: core's server drops the leaf on that reload. */
  async removeLeaf(engineId: string): Promise<void> {
    const server = this.deps.server();
    if (server?.running) await server.removeUsers(leafGrant(engineId).user);
  }

  /** Issues a user on the server, its secret known to the redactor and remembered until the user is removed. */
  private async issue(
    server: ManagedNats,
    name: string,
    grant: Parameters<ManagedNats['issue']>[0],
    ttlMs: number | null,
  ): Promise<IssuedUser> {
    const user = server.issue(grant, ttlMs);
    this.deps.redactor.addSecret(jwtSecret(user.password));
    await server.addUsers(user);
    this.passwords.set(name, user.password);
    return { user: name, password: user.password };
  }

  private async remove(name: string): Promise<void> {
    const password = this.passwords.get(name);
    this.passwords.delete(name);
    const server = this.deps.server();
    if (server?.running) await server.removeUsers(name);
    // The value stays masked until the server has dropped the user.
    if (password) this.deps.redactor.removeSecret(jwtSecret(password));
  }
}
