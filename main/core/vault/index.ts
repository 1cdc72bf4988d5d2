// The vault room's public face: what the rest of Nexus may use of it (docs/architecture.md, "Rooms and faces").
export { noVaultScope, type VaultCallScope } from './call-key';
export type { CoreSecret, SecretFallback } from './core-secret';
export { CoreSecrets } from './core-secrets';
export { open, seal } from './crypto';
export type { Dek } from './dek';
export { keyFileFromEnv } from './key-file';
export { withTimeout } from './operator-key';
export { OsKeychain } from './os-keychain';
export { SealedCoreSecrets } from './sealed-core-secrets';
export { vaultHandlers } from './vault-handlers';
export { VaultService } from './vault';
