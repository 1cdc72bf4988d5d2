import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as OidcProvider from 'oidc-provider';
import type { Provider, ProviderClient, ProviderInteraction } from 'oidc-provider';
import type { AuditLog } from '../audit';
import type { RemoteClass } from '../../../shared/contract';
import type { Logger } from '../log';
import type { OAuthEntries } from './oauth-entries';
import { matchesVerifier } from './preregistered-clients';
import type { PendingRow, ConnectorGrants } from './connector-grants';
import { canonicalResource, isAllowedRedirect, OAUTH_PATHS, OPERATOR_ACCOUNT, REMOTE_SCOPES } from './public-urls';

const HOUR = 3600;
const DAY = 24 * HOUR;

export interface AuthorizationServerDeps {
  entries: OAuthEntries;
  grants: ConnectorGrants;
  log: Logger;
  /** The audit: registrations, tokens issued and every refusal of the OAuth endpoints. */
  audit?: Pick<AuditLog, 'record'>;
}

type OidcCtx = { oidc?: { entities?: { Grant?: { jti?: string } } } };

/** A verified OAuth access token: the grant it was issued under. */
export interface VerifiedAccessToken {
  grantId: string;
  clientId: string;
}

/**
 * Nexus's own OAuth authorization server for one public origin, built on oidc-provider 9
 * (dynamic registration, PKCE S256, resource indicators, refresh rotation with reuse detection,
 * revocation are the library's). What Nexus adds:
 *  - the only resource is the canonical MCP URL (`<origin>/api/mcp`); tokens are opaque, 1 h, bound
 *    to it (any other `resource` is `invalid_target`);
 *  - registration takes only Claude's callbacks and loopback redirects;
 *  - every authorization needs the operator: no grant is ever reused silently (`loadExistingGrant`
 *    takes only the grant of this interaction), and the interaction page only shows a code;
 *  - refresh tokens live 30 days and rotate; a replayed one revokes the grant (the library's rule).
 */
export class AuthorizationServer {
  readonly issuer: string;
  readonly resource: string;
  private readonly provider: Provider;
  readonly handle: (req: IncomingMessage, res: ServerResponse) => void;

  /** Loads the library (only when public origin mode is on: nothing of it runs otherwise) and builds the server. */
  static async create(origin: string, deps: AuthorizationServerDeps): Promise<AuthorizationServer> {
    return new AuthorizationServer(origin, deps, await import('oidc-provider'));
  }

  private constructor(
    origin: string,
    private readonly deps: AuthorizationServerDeps,
    { Provider, errors }: typeof OidcProvider,
  ) {
    this.issuer = origin;
    this.resource = canonicalResource(origin);
    const resource = this.resource;
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    const provider = new Provider(origin, {
      adapter: deps.entries.adapter(),
      clients: [],
      clientDefaults: {
        id_token_signed_response_alg: 'ES256',
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
      jwks: { keys: [{ ...jwk, use: 'sig', alg: 'ES256' }] },
      cookies: { keys: [randomBytes(32).toString('base64url')] },
      routes: {
        authorization: OAUTH_PATHS.authorization,
        token: OAUTH_PATHS.token,
        registration: OAUTH_PATHS.registration,
        revocation: OAUTH_PATHS.revocation,
        jwks: OAUTH_PATHS.jwks,
      },
      scopes: ['openid', 'offline_access'],
      responseTypes: ['code'],
      pkce: { required: () => true },
      clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
      features: {
        devInteractions: { enabled: false },
        registration: { enabled: true },
        revocation: { enabled: true },
        userinfo: { enabled: false },
        introspection: { enabled: false },
        rpInitiatedLogout: { enabled: false },
        pushedAuthorizationRequests: { enabled: false },
        // The gate checks bearer tokens only: a sender-constrained (DPoP) token is not offered.
        dPoP: { enabled: false },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => resource,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, indicator: string) => {
            if (indicator !== resource) throw new errors.InvalidTarget(`the only resource here is ${resource}`);
            return {
              scope: REMOTE_SCOPES.join(' '),
              audience: resource,
              accessTokenFormat: 'opaque',
              accessTokenTTL: HOUR,
            };
          },
        },
      },
      extraClientMetadata: {
        properties: ['nexus_redirect_check'],
        validator: (_ctx: unknown, key: string, _value: unknown, metadata: { redirect_uris?: unknown }) => {
          if (key !== 'nexus_redirect_check') return;
          const uris = Array.isArray(metadata.redirect_uris) ? (metadata.redirect_uris as unknown[]) : [];
          const bad = uris.find((u) => typeof u !== 'string' || !isAllowedRedirect(u));
          if (bad !== undefined)
            throw new errors.InvalidRedirectUri(
              "only Claude's callbacks (https://claude.ai|claude.com/api/mcp/auth_callback) and loopback redirects are accepted",
            );
        },
      },
      issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) =>
        client.grantTypeAllowed('refresh_token'),
      rotateRefreshToken: true,
      expiresWithSession: () => false,
      loadExistingGrant: (ctx: { oidc: { result?: { consent?: { grantId?: string } } } }) => {
        const id = ctx.oidc.result?.consent?.grantId;
        return id ? provider.Grant.find(id) : undefined;
      },
      interactions: {
        url: (_ctx: unknown, interaction: { uid: string }) => `${OAUTH_PATHS.consent}/${interaction.uid}`,
      },
      findAccount: (_ctx: unknown, id: string) =>
        id === OPERATOR_ACCOUNT ? { accountId: id, claims: () => ({ sub: id }) } : undefined,
      ttl: {
        AccessToken: HOUR,
        AuthorizationCode: 600,
        RefreshToken: 30 * DAY,
        Grant: 365 * DAY,
        Interaction: 600,
        Session: 60,
      },
      renderError: (
        ctx: { type: string; body: string; res: ServerResponse; status: number },
        out: { error?: string },
      ) => {
        ctx.type = 'html';
        ctx.body = `<!doctype html><title>Nexus</title><p>${String(out.error ?? 'error').replace(/[^a-z_]/g, '')}</p>`;
      },
    });
    provider.proxy = true;
    // A pre-registered client's secret is stored as a verifier (its hash): compare through it. This is
    // the library's own extension point for secrets not stored as given (oidc-provider issue #631).
    const compareAsStored = provider.Client.prototype.compareClientSecret;
    provider.Client.prototype.compareClientSecret = function (this: ProviderClient, actual: string) {
      return matchesVerifier(this.clientSecret, actual) ?? compareAsStored.call(this, actual);
    };
    provider.on('server_error', (_ctx: unknown, error: unknown) =>
      deps.log.warn('authorization server error', { error }),
    );
    const audit = (actor: string, operation: string, outcome: string): void =>
      deps.audit?.record({ actor, transport: 'oauth', operation, outcome, durationMs: 0 });
    const code = (e: unknown): string =>
      typeof (e as { error?: unknown }).error === 'string' ? (e as { error: string }).error.slice(0, 40) : 'error';
    provider.on('registration_create.success', () => audit('anonymous', 'oauth:register', 'ok'));
    provider.on('registration_create.error', (_ctx: unknown, e: unknown) =>
      audit('anonymous', 'oauth:register', code(e)),
    );
    provider.on('grant.success', (ctx: unknown) => {
      const grantId = (ctx as OidcCtx).oidc?.entities?.Grant?.jti;
      audit(grantId ? `token:oauth:${grantId}` : 'anonymous', 'oauth:token', 'ok');
    });
    provider.on('grant.error', (_ctx: unknown, e: unknown) => audit('anonymous', 'oauth:token', code(e)));
    provider.on('authorization.error', (_ctx: unknown, e: unknown) => audit('anonymous', 'oauth:authorize', code(e)));
    // A replayed refresh token or code, or a client revoking its refresh token, ends the grant: say so in the list.
    provider.on('grant.revoked', (_ctx: unknown, grantId: unknown) => {
      if (typeof grantId === 'string') deps.grants.revoke(grantId);
    });
    this.provider = provider;
    this.handle = provider.callback();
  }

  /** The access token's grant, when it is active, unexpired and bound to this origin's MCP URL. */
  async verifyAccessToken(secret: string): Promise<VerifiedAccessToken | null> {
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(secret)) return null;
    const token = await this.provider.AccessToken.find(secret);
    if (!token) return null;
    const audiences = Array.isArray(token.aud) ? token.aud : [token.aud];
    if (audiences.length !== 1 || audiences[0] !== this.resource) return null;
    return { grantId: token.grantId, clientId: token.clientId };
  }

  /** The interaction behind this browser's cookie, or null (expired, or opened in another browser). */
  async interaction(req: IncomingMessage, res: ServerResponse): Promise<ProviderInteraction | null> {
    try {
      return await this.provider.interactionDetails(req, res);
    } catch {
      return null;
    }
  }

  async clientName(clientId: string): Promise<string> {
    const client = await this.provider.Client.find(clientId);
    return (client?.clientName ?? 'unnamed client').slice(0, 80);
  }

  /**
   * The provider's grant for an approved request: of the MCP scopes it asked, those the operator's
   * class allows (read: `nexus:read` only), the rest rejected — so the token's `scope` says the class.
   */
  async newGrant(pending: PendingRow, scope: string, cls: RemoteClass): Promise<string> {
    const grant = new this.provider.Grant({ accountId: OPERATOR_ACCOUNT, clientId: pending.client_id });
    const asked = scope.split(' ').filter(Boolean);
    const mcp = asked.filter((s) => s.startsWith('nexus:'));
    const allowed = cls === 'write' ? mcp : mcp.filter((s) => s === 'nexus:read');
    const refused = mcp.filter((s) => !allowed.includes(s));
    grant.addResourceScope(this.resource, allowed.join(' ') || REMOTE_SCOPES[0]);
    if (refused.length) grant.rejectResourceScope(this.resource, refused.join(' '));
    const oidc = asked.filter((s) => s === 'openid' || s === 'offline_access');
    if (oidc.length) grant.addOIDCScope(oidc.join(' '));
    return grant.save();
  }

  finish(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>): Promise<void> {
    return this.provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  }
}
