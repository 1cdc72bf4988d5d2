import { DEFAULT_TOKEN_DAYS, type TokenClass, type TokenInfo } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';
import type { EventBus } from '../events';
import type { Caller } from '../handlers';
import type { Logger } from '../log';
import type { Db } from '../store';
import { noVaultScope, type VaultCallScope } from '../vault';
import { TokenStore, type Verdict } from './token-store';

/**
 * What the vault offers for machine principals (the vault service). A vault-class token
 * is a machine principal: its KEK is derived from the token, so create/start_workspace can open
 * the data key for that call while the operator is away (the vault stays locked for everyone
 * else); revoking the token removes the principal and rotates.
 */
export interface MachinePrincipals {
  addMachinePrincipal(principalId: string, credential: string): Promise<unknown>;
  removePrincipal(principalId: string): Promise<unknown>;
  machineScope(principalId: string, credential: string): VaultCallScope;
}

export const vaultPrincipalId = (tokenId: string): string => `token:${tokenId}`;

const DAY_MS = 86_400_000;

/**
 * A verified caller. `vault` carries the data key of a vault-class token for this one request:
 * run the request inside it and end it when the request is over.
 */
export type Authentication =
  { ok: true; caller: Extract<Caller, { kind: 'token' }>; vault: VaultCallScope } | Extract<Verdict, { ok: false }>;

/** MCP tokens: create (secret shown once), list, revoke, and authenticate a presented secret. */
export class TokenService {
  readonly store: TokenStore;
  private readonly vault: MachinePrincipals;

  constructor(
    db: Db,
    private readonly deps: { vault: MachinePrincipals; events: EventBus; log: Logger; now?: () => Date },
  ) {
    this.store = new TokenStore(db, deps.now);
    this.vault = deps.vault;
  }

  async create(
    name: string,
    cls: TokenClass,
    expiresInDays = DEFAULT_TOKEN_DAYS,
  ): Promise<{ token: TokenInfo; secret: string }> {
    const now = this.deps.now?.() ?? new Date();
    const created = this.store.create(name, cls, new Date(now.getTime() + expiresInDays * DAY_MS));
    if (cls === 'vault') {
      try {
        await this.vault.addMachinePrincipal(vaultPrincipalId(created.token.id), created.secret);
      } catch (e) {
        // A vault token that cannot open the vault would be a lie: undo and say why.
        this.store.remove(created.token.id);
        throw e;
      }
    }
    this.deps.log.info('token created', { id: created.token.id, class: cls, expiresAt: created.token.expiresAt });
    this.deps.events.emit('tokens.changed', { token: created.token });
    return created;
  }

  list(): TokenInfo[] {
    return this.store.list();
  }

  async revoke(id: string): Promise<TokenInfo> {
    const before = this.store.get(id);
    if (!before) throw new NexusError('not_found', `No token "${id}".`);
    const token = this.store.revoke(id) ?? before;
    if (token.class === 'vault' && before.revokedAt === null) {
      try {
        await this.vault.removePrincipal(vaultPrincipalId(id));
      } catch (e) {
        if (!(e instanceof NexusError && e.code === 'not_found')) throw e;
      }
    }
    this.deps.log.info('token revoked', { id });
    this.deps.events.emit('tokens.changed', { token });
    return token;
  }

  /**
   * The caller a presented secret stands for, or why not. A vault token also opens the data key
   * through its machine principal, for this request only (best effort: without it the operation
   * reports vault_locked). The operator's vault state is never changed by a token.
   */
  async authenticate(secret: string): Promise<Authentication> {
    const verdict = this.store.verify(secret);
    if (!verdict.ok) return verdict;
    const { token } = verdict;
    let vault = noVaultScope;
    if (token.class === 'vault') {
      try {
        vault = this.vault.machineScope(vaultPrincipalId(token.id), secret);
      } catch (e) {
        this.deps.log.warn('vault token could not open the vault key', { id: token.id, error: e });
      }
    }
    return {
      ok: true,
      caller: { kind: 'token', tokenId: token.id, name: token.name, access: token.class },
      vault,
    };
  }
}
