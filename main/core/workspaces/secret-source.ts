import { NexusError } from '../../../shared/errors';

/** A provider credential as the vault hands it to the workspace service, for one use. */
export interface ResolvedSecret {
  value: string;
  /** The git host it is for (e.g. `github.com`); null = any host. */
  host: string | null;
  kind: string;
}

/**
 * The port through which workspaces get provider tokens. The vault implements it
 * (`core.vault.resolveSecret`); resolve throws `not_found` for an unknown id and `vault_locked`
 * when the vault cannot open it.
 */
export interface SecretSource {
  resolve(secretId: string): Promise<ResolvedSecret>;
}

/** For a workspace service built without the vault (tests that need no secret): every secret is unknown. */
export const noSecrets: SecretSource = {
  resolve: (secretId) =>
    Promise.reject(new NexusError('not_found', `Secret "${secretId}" not found: the vault is not available.`)),
};

/** The git username that goes with a token kind. */
export function gitUsername(kind: string): string {
  if (/gitlab/i.test(kind)) return 'oauth2';
  return 'x-access-token';
}
