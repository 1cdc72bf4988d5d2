import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import {
  delegatedTokenName,
  type DelegationAccess,
  type Delegation,
  type TokenInfo,
} from '../../../../shared/contract';
import type { Logger } from '../../log';
import type { Db } from '../../store';
import type { TokenService } from '../../tokens';
import type { CoreSecret, CoreSecrets } from '../../vault';
import { DelegationStore, type DelegationRow as Row } from './delegation-store';

/** The keychain entry that holds a workspace's delegated secret (core needs it again at each session launch). */
export const DELEGATION_KEYCHAIN_SERVICE = 'Nexus Desktop delegation';
const dataDirKey = (dataDir: string) => createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16);
export const delegationKeychainAccount = (dataDir: string, workspaceId: string): string =>
  `delegation:${dataDirKey(dataDir)}:${workspaceId}`;
/** A workspace's delegated secret as a core secret: the keychain, else sealed in the vault. */
export const delegationSecret = (dataDir: string, workspaceId: string): CoreSecret => ({
  service: DELEGATION_KEYCHAIN_SERVICE,
  account: delegationKeychainAccount(dataDir, workspaceId),
  fallback: 'vault',
  // Its name before delegations had their own word (migration 036): moved on first read.
  formerly: { service: 'Nexus Desktop fleet', account: `fleet:${dataDirKey(dataDir)}:${workspaceId}` },
});

/** Who a delegated token speaks for: its workspace, and whether the operator let it act on others. */
export interface DelegatedScope {
  workspaceId: string;
  allWorkspaces: boolean;
}

export interface DelegationsDeps {
  db: Db;
  tokens: TokenService;
  secrets: CoreSecrets;
  dataDir: string;
  log: Logger;
}

/**
 * Each workspace's delegated credential: an ordinary MCP token (hashed, expiring, revocable, listed in
 * Settings → Access under the workspace's name) linked to the workspace in `delegations`.
 * The secret is kept in the OS keychain, like Claude Desktop's, because core writes it into every
 * session's --mcp-config; without a keychain it is sealed in the vault (core-secrets.ts). It is
 * never in the database in clear, a log or a result.
 */
export class Delegations {
  private readonly store: DelegationStore;

  constructor(private readonly deps: DelegationsDeps) {
    this.store = new DelegationStore(deps.db);
  }

  list(): Delegation[] {
    return this.store.all().flatMap((r) => {
      const token = this.deps.tokens.store.get(r.token_id);
      return token ? [credentialOf(r, token)] : [];
    });
  }

  get(workspaceId: string): Delegation | null {
    const r = this.row(workspaceId);
    const token = r ? this.deps.tokens.store.get(r.token_id) : null;
    return r && token ? credentialOf(r, token) : null;
  }

  /** The scope of a token, when it is a delegated credential. */
  scopeOf(tokenId: string): DelegatedScope | null {
    const r = this.store.ofToken(tokenId);
    return r ? { workspaceId: r.workspace_id, allWorkspaces: r.all_workspaces === 1 } : null;
  }

  /**
   * Sets a workspace's credential. `none` revokes it; the same class with an active token only
   * changes the scope flag (running sessions keep working); another class mints a new token and
   * revokes the old one (sessions launched from now on get the new one).
   */
  async set(
    ws: { id: string; name: string },
    access: DelegationAccess,
    allWorkspaces = false,
  ): Promise<Delegation | null> {
    const current = this.get(ws.id);
    if (access === 'none') {
      await this.remove(ws.id);
      return null;
    }
    if (current && current.class === access && current.state === 'active') {
      this.store.setAllWorkspaces(ws.id, allWorkspaces);
      return this.get(ws.id);
    }
    const kept = delegationSecret(this.deps.dataDir, ws.id);
    // A sealed vault (where it must keep the secret) refuses here, before a token is minted for nothing.
    await this.deps.secrets.ready(kept);
    const created = await this.deps.tokens.create(delegatedTokenName(ws.name), access);
    try {
      await this.deps.secrets.set(kept, created.secret);
    } catch (e) {
      await this.deps.tokens.revoke(created.token.id);
      throw e;
    }
    const old = this.row(ws.id);
    this.store.link(ws.id, created.token.id, allWorkspaces, new Date().toISOString());
    if (old) await this.revokeQuietly(old.token_id);
    this.deps.log.info('delegated credential set', { workspaceId: ws.id, class: access, tokenId: created.token.id });
    return this.get(ws.id);
  }

  /** Revokes a workspace's credential and forgets its secret (its workspace is gone, or the operator chose none). */
  async remove(workspaceId: string): Promise<void> {
    const r = this.row(workspaceId);
    if (!r) return;
    await this.revokeQuietly(r.token_id);
    this.store.forget(workspaceId);
    await this.deps.secrets
      .delete(delegationSecret(this.deps.dataDir, workspaceId))
      .catch((e: unknown) => this.deps.log.warn('forgetting a delegated secret failed', { workspaceId, error: e }));
    this.deps.log.info('delegated credential removed', { workspaceId, tokenId: r.token_id });
  }

  /** Removes the credentials of workspaces that are gone (a delete while core was down). */
  async sweep(exists: (workspaceId: string) => boolean): Promise<void> {
    for (const r of this.store.all()) if (!exists(r.workspace_id)) await this.remove(r.workspace_id);
  }

  /**
   * The secret for a session's --mcp-config, while the credential is active; null otherwise. Throws
   * `vault_locked` when it is sealed in a vault that is sealed (the launch then goes without it).
   */
  async secretOf(workspaceId: string): Promise<string | null> {
    const c = this.get(workspaceId);
    if (!c || c.state !== 'active') return null;
    const secret = await this.deps.secrets.get(delegationSecret(this.deps.dataDir, workspaceId));
    return secret && this.deps.tokens.store.holds(c.tokenId, secret) ? secret : null;
  }

  private row(workspaceId: string): Row | null {
    return this.store.ofWorkspace(workspaceId);
  }

  private async revokeQuietly(tokenId: string): Promise<void> {
    try {
      await this.deps.tokens.revoke(tokenId);
    } catch (e) {
      this.deps.log.warn('revoking a delegated token failed', { tokenId, error: e });
    }
  }
}

const credentialOf = (r: Row, token: TokenInfo): Delegation => ({
  workspaceId: r.workspace_id,
  tokenId: token.id,
  class: token.class,
  allWorkspaces: r.all_workspaces === 1,
  state: token.state,
  expiresAt: token.expiresAt,
});
