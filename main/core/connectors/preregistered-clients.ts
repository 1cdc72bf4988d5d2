import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { RemoteClient } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';
import type { OAuthEntries } from './oauth-entries';
import type { ConnectorGrants } from './connector-grants';
import { CLAUDE_CALLBACKS } from './public-urls';

/** How a stored client secret is marked as a verifier (a hash), not the secret itself. */
const VERIFIER_PREFIX = 'nexus-sha256:';
export const PREREGISTERED_NAME = 'Claude (pre-registered)';

const sha256 = (value: string): string => createHash('sha256').update(value, 'utf8').digest('base64url');

/** What is stored in place of a pre-registered client's secret. */
export const secretVerifier = (secret: string): string => `${VERIFIER_PREFIX}${sha256(secret)}`;

/**
 * Whether `presented` is the secret behind a stored verifier, or null when `stored` is not a
 * verifier (a dynamically registered client's secret, compared by the library as it is).
 */
export function matchesVerifier(stored: unknown, presented: string): boolean | null {
  if (typeof stored !== 'string' || !stored.startsWith(VERIFIER_PREFIX)) return null;
  const want = Buffer.from(stored, 'utf8');
  const got = Buffer.from(secretVerifier(presented), 'utf8');
  return want.length === got.length && timingSafeEqual(want, got);
}

type ClientPayload = { client_id: string; client_name?: string; nexus_preregistered?: string };

/**
 * Clients the operator makes in Settings → Access for Claude's "advanced settings" (client id and
 * secret), instead of dynamic registration. The secret is random (256 bits), returned once, and
 * stored only as its SHA-256 verifier: the authorization server compares through
 * `compareClientSecret` (authorization-server.ts). Redirects are Claude's two callbacks; each
 * authorization still waits for the operator's approval.
 */
export class PreregisteredClients {
  constructor(
    private readonly entries: OAuthEntries,
    private readonly grants: ConnectorGrants,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async create(): Promise<{ clientId: string; clientSecret: string; redirectUris: string[] }> {
    const clientId = `nexus-${randomBytes(12).toString('base64url')}`;
    const clientSecret = randomBytes(32).toString('base64url');
    const at = this.now();
    await this.entries.upsert('Client', clientId, {
      client_id: clientId,
      client_id_issued_at: Math.floor(at.getTime() / 1000),
      client_name: PREREGISTERED_NAME,
      client_secret: secretVerifier(clientSecret),
      client_secret_expires_at: 0,
      redirect_uris: [...CLAUDE_CALLBACKS],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      nexus_preregistered: at.toISOString(),
    });
    this.entries.keepClient(clientId);
    return { clientId, clientSecret, redirectUris: [...CLAUDE_CALLBACKS] };
  }

  list(): RemoteClient[] {
    return this.entries.store
      .preregisteredClients()
      .map((payload) => JSON.parse(payload) as ClientPayload)
      .map((p) => ({
        clientId: p.client_id,
        clientName: p.client_name ?? PREREGISTERED_NAME,
        createdAt: p.nexus_preregistered ?? '',
      }))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  /** Deletes the client, and revokes every grant (and so every token) it holds. */
  async revoke(clientId: string): Promise<string[]> {
    if (!this.list().some((c) => c.clientId === clientId))
      throw new NexusError('not_found', `No pre-registered client "${clientId}".`);
    await this.entries.destroy('Client', clientId);
    const revoked = this.grants.activeGrantIdsOf(clientId);
    for (const id of revoked) {
      this.grants.revoke(id);
      await this.entries.revokeByGrantId(id);
    }
    return revoked;
  }
}
