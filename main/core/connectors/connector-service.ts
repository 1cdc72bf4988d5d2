import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RemoteClass, RemoteClient, RemoteGrant, RemotePending, RemoteStatus } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';
import type { AuditLog } from '../audit';
import type { Logger } from '../log';
import type { Db } from '../store';
import type { Authentication } from '../tokens';
import { noVaultScope } from '../vault';
import { AuthorizationServer } from './authorization-server';
import { sendConsentPage } from './consent-page';
import { OAuthEntries } from './oauth-entries';
import { PreregisteredClients } from './preregistered-clients';
import { ConnectorGrants } from './connector-grants';
import {
  canonicalResource,
  OPERATOR_ACCOUNT,
  parsePublicOrigin,
  PROTECTED_RESOURCE_METADATA_PATH,
  REMOTE_SCOPES,
} from './public-urls';

const ORIGIN_SETTING = 'publicOrigin';
/** The class a request asks for by its scope (`nexus:write` → write; anything else → read). */
const classAsked = (scope: unknown): RemoteClass =>
  typeof scope === 'string' && scope.split(' ').includes('nexus:write') ? 'write' : 'read';
/** The caller id of an OAuth grant, in the audit (`token:oauth:<grant>`) and on the Caller. */
export const grantCallerId = (grantId: string): string => `oauth:${grantId}`;

/**
 * Remote connectors: public origin mode and the authorization server behind it. Off by default; on
 * with `--public-origin` / NEXUS_PUBLIC_ORIGIN (pinned: the setting cannot change it) or Settings →
 * Access. It owns the pending approvals and grants (operator operations) and tells the MCP gate who
 * an OAuth access token stands for.
 */
export class ConnectorService {
  readonly entries: OAuthEntries;
  readonly grants: ConnectorGrants;
  readonly clients: PreregisteredClients;
  private pinned: string | null = null;
  /**
   * The stored origin as last read (undefined: read it again). Every request asks for it (the
   * host's first check is whether its Host is the public one), and `setOrigin` is its only writer,
   * which drops it; the Host name is parsed once per origin.
   */
  private stored: string | null | undefined;
  private host: { origin: string; host: string } | null = null;
  private server: AuthorizationServer | null = null;

  constructor(
    db: Db,
    private readonly deps: { log: Logger; audit?: Pick<AuditLog, 'record'>; now?: () => Date },
  ) {
    this.entries = new OAuthEntries(db, deps.now);
    this.grants = new ConnectorGrants(db, deps.now);
    this.clients = new PreregisteredClients(this.entries, this.grants, deps.now);
    this.entries.sweep();
    this.grants.sweep();
  }

  /** The origin given on the command line or in the environment; it wins over the setting. */
  pin(value: string | undefined): void {
    if (value === undefined || value === '') return;
    const origin = parsePublicOrigin(value);
    if (!origin)
      throw new NexusError(
        'bad_request',
        `--public-origin must be an https origin such as https://nexus.example.ts.net, got "${value}".`,
      );
    this.pinned = origin;
  }

  origin(): string | null {
    if (this.pinned) return this.pinned;
    if (this.stored === undefined) this.stored = this.grants.getSetting(ORIGIN_SETTING);
    return this.stored;
  }

  /** `name[:port]` as a Host header carries it on the public path, or null when the mode is off. */
  publicHost(): string | null {
    const origin = this.origin();
    if (!origin) return null;
    if (this.host?.origin !== origin) this.host = { origin, host: new URL(origin).host };
    return this.host.host;
  }

  status(): RemoteStatus {
    const origin = this.origin();
    return {
      publicOrigin: origin,
      source: this.pinned ? 'flag' : origin ? 'setting' : 'off',
      connectorUrl: origin ? canonicalResource(origin) : null,
    };
  }

  setOrigin(value: string | null): RemoteStatus {
    if (this.pinned)
      throw new NexusError('conflict', 'The public origin is set by --public-origin / NEXUS_PUBLIC_ORIGIN.');
    this.stored = undefined;
    if (value === null || value.trim() === '') {
      this.grants.setSetting(ORIGIN_SETTING, null);
    } else {
      const origin = parsePublicOrigin(value);
      if (!origin)
        throw new NexusError('bad_request', 'Give an https origin with no path, e.g. https://nexus.example.ts.net.');
      this.grants.setSetting(ORIGIN_SETTING, origin);
    }
    this.deps.log.info('public origin changed', { origin: this.origin() });
    return this.status();
  }

  /**
   * The authorization server for the origin in force (rebuilt when the origin changes), or null.
   * The library (oidc-provider, Koa) is loaded only once the mode is on.
   */
  async authorizationServer(): Promise<AuthorizationServer | null> {
    const origin = this.origin();
    if (!origin) return (this.server = null);
    if (this.server?.issuer !== origin) {
      const server = await AuthorizationServer.create(origin, {
        entries: this.entries,
        grants: this.grants,
        log: this.deps.log,
        ...(this.deps.audit ? { audit: this.deps.audit } : {}),
      });
      if (this.origin() !== origin) return this.authorizationServer();
      if (this.server?.issuer !== origin) this.server = server;
    }
    return this.server;
  }

  /** RFC 9728: the MCP endpoint's protected resource metadata. */
  protectedResourceMetadata(): Record<string, unknown> | null {
    const origin = this.origin();
    if (!origin) return null;
    return {
      resource: canonicalResource(origin),
      authorization_servers: [origin],
      scopes_supported: [...REMOTE_SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'Nexus',
    };
  }

  /** The `WWW-Authenticate` challenge of the MCP endpoint on the public Host. */
  challenge(extra = ''): string {
    const origin = this.origin() ?? '';
    return `Bearer resource_metadata="${origin}${PROTECTED_RESOURCE_METADATA_PATH}"${extra}`;
  }

  /**
   * Who an OAuth access token stands for: its grant, when the token is active and bound to the
   * canonical MCP URL of the origin in force, and the grant is not revoked. Never a vault scope.
   */
  async authenticate(secret: string): Promise<Authentication> {
    const server = await this.authorizationServer();
    const token = server ? await server.verifyAccessToken(secret) : null;
    if (!token) return { ok: false, reason: 'unknown' };
    const grant = this.grants.grantRow(token.grantId);
    if (!grant || grant.client_id !== token.clientId || grant.resource !== server?.resource)
      return { ok: false, reason: 'unknown' };
    if (grant.revoked_at) return { ok: false, reason: 'revoked' };
    this.grants.touch(grant);
    return {
      ok: true,
      caller: { kind: 'token', tokenId: grantCallerId(grant.id), name: grant.client_name, access: grant.class },
      vault: noVaultScope,
    };
  }

  pending(): RemotePending[] {
    return this.grants.pending();
  }

  async approve(id: string, cls: RemoteClass): Promise<RemoteGrant> {
    const row = this.waiting(id);
    const server = await this.authorizationServer();
    if (!server) throw new NexusError('conflict', 'Public origin mode is off.');
    const grantId = await server.newGrant(row, row.scope, cls);
    this.entries.keepClient(row.client_id);
    const grant = this.grants.addGrant(grantId, row, cls, server.resource);
    this.grants.decide(id, 'approved', cls, grantId);
    this.deps.log.info('connector approved', { grant: grantId, class: cls });
    return grant;
  }

  deny(id: string): { denied: true } {
    this.waiting(id);
    this.grants.decide(id, 'denied', null, null);
    return { denied: true };
  }

  listGrants(): RemoteGrant[] {
    return this.grants.grants();
  }

  async revoke(id: string): Promise<RemoteGrant> {
    if (!this.grants.grantRow(id)) throw new NexusError('not_found', `No connector grant "${id}".`);
    this.grants.revoke(id);
    await this.entries.revokeByGrantId(id);
    this.deps.log.info('connector revoked', { grant: id });
    return this.grants.grant(id) as RemoteGrant;
  }

  /** A client id and secret for Claude's "advanced settings"; the secret is returned this once and stored hashed. */
  async createClient(): Promise<{ clientId: string; clientSecret: string; redirectUris: string[] }> {
    const made = await this.clients.create();
    this.deps.log.info('pre-registered client created', { client: made.clientId });
    return made;
  }

  listClients(): RemoteClient[] {
    return this.clients.list();
  }

  /** Deletes a pre-registered client and revokes its grants and their tokens at once. */
  async revokeClient(clientId: string): Promise<{ revoked: true; clientId: string; grantsRevoked: number }> {
    const grants = await this.clients.revoke(clientId);
    this.deps.log.info('pre-registered client revoked', { client: clientId, grants: grants.length });
    return { revoked: true, clientId, grantsRevoked: grants.length };
  }

  /**
   * The public consent page of one interaction. It needs the browser that started the request (the
   * interaction cookie); it records the request for the operator, shows the code, and — once the
   * operator decided in the local UI — carries the client on with the code or `access_denied`.
   */
  async consent(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const server = await this.authorizationServer();
    const interaction = server ? await server.interaction(req, res) : null;
    if (!server || !interaction || interaction.uid !== uid)
      return sendConsentPage(res, 400, {
        title: 'This link has expired',
        lines: ['Start again from Claude: add or reconnect the connector.'],
      });
    const clientId = String(interaction.params.client_id ?? '');
    const row = this.grants.ensurePending({
      uid,
      clientId,
      clientName: await server.clientName(clientId),
      redirectUri: String(interaction.params.redirect_uri ?? ''),
      classAsked: classAsked(interaction.params.scope),
      scope: typeof interaction.params.scope === 'string' ? interaction.params.scope : '',
      expiresAt: new Date(interaction.exp * 1000),
    });
    if (!row)
      return sendConsentPage(res, 429, {
        title: 'Too many requests are waiting',
        lines: ['Approve or deny the connectors waiting in Nexus (Settings → Access), or wait ten minutes.'],
      });
    if (row.decision === 'approved' && row.grant_id) {
      this.grants.settle(uid);
      return server.finish(req, res, { login: { accountId: OPERATOR_ACCOUNT }, consent: { grantId: row.grant_id } });
    }
    if (row.decision === 'denied') {
      this.grants.settle(uid);
      return server.finish(req, res, {
        error: 'access_denied',
        error_description: 'The operator denied this connector.',
      });
    }
    sendConsentPage(res, 200, {
      title: 'Approve in Nexus',
      code: row.code,
      lines: [
        `${row.client_name} asks to use Nexus.`,
        'Open Nexus on your computer: Settings → Access → Connectors waiting. Check the code matches, then approve.',
        'This page moves on by itself.',
      ],
      refreshSeconds: 3,
    });
  }

  private waiting(id: string) {
    const row = this.grants.pendingRow(id);
    if (!row || row.decision !== null || Date.parse(row.expires_at) <= (this.deps.now?.() ?? new Date()).getTime())
      throw new NexusError('not_found', `No connector waiting with id "${id}".`);
    return row;
  }
}
