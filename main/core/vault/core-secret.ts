// What a secret core keeps for itself: the port (core-secrets.ts), its store and its fallbacks all speak of these.

/** A secret core keeps for itself, by its keychain name (service, account). */
export interface CoreSecretName {
  service: string;
  account: string;
}

/** Where a core secret goes when the OS keychain does not answer. */
export interface SecretFallback {
  /** Null when nothing is kept here; throws `vault_locked` when reading needs a sealed vault. */
  read(): string | null;
  write(secret: string): void;
  remove(): void;
  /** Throws what `write` would throw now (`vault_locked`): checked before a token is minted for it. */
  ready(): void;
}

/**
 * A secret core keeps for itself, named like its OS keychain entry. Without a keychain it is sealed
 * in the vault (`'vault'`), or kept in a place of its own when another process must read it.
 */
export interface CoreSecret extends CoreSecretName {
  fallback: 'vault' | SecretFallback;
  /** The name it was kept under before a rename: read once when the current name holds nothing, then moved. */
  formerly?: CoreSecretName;
}
