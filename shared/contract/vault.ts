import { z } from 'zod';
import { operation } from './define';

/** Where the vault stands, with a sentence the UI shows as-is. */
export const VaultStateName = z.enum(['uninitialized', 'locked', 'unlocked']);
export type VaultStateName = z.infer<typeof VaultStateName>;

/**
 * Where the operator's copy of the data key is opened from: the OS keychain (the desktop), a
 * passphrase (no keychain: sealed at every start until unlocked), or a key file (unattended services).
 */
export const VaultMode = z.enum(['keychain', 'passphrase', 'key_file']);
export type VaultMode = z.infer<typeof VaultMode>;

export const PrincipalKind = z.enum(['operator', 'recovery', 'machine']);
export type PrincipalKind = z.infer<typeof PrincipalKind>;

/** A holder of a wrapped copy of the data key. Never carries key material. */
export const VaultPrincipal = z.object({
  id: z.string(),
  kind: PrincipalKind,
  createdAt: z.string(),
});
export type VaultPrincipal = z.infer<typeof VaultPrincipal>;

export const VaultStatus = z.object({
  state: VaultStateName,
  reason: z.string(),
  /** How this vault opens; null before set-up. */
  mode: VaultMode.nullable(),
  /** Before set-up: whether the OS keychain can take the key (null: not known yet); set-up asks for a passphrase when false. */
  keychainReachable: z.boolean().nullable(),
  /** The key file Nexus was started with (--vault-key-file, NEXUS_VAULT_KEY_FILE, systemd credential), if any. */
  keyFile: z.string().nullable(),
  /** Term (id) of the current data key; it goes up by one at every rotation. Null before init. */
  keyTerm: z.number().int().positive().nullable(),
  hasRecoveryPassphrase: z.boolean(),
  principals: z.array(VaultPrincipal),
});
export type VaultStatus = z.infer<typeof VaultStatus>;

/**
 * The vault's own secret kinds: provider tokens (github, gitlab, generic) clone and fetch repositories; an SSH
 * private key and TLS material (PEM) reach remote Docker engines (Settings → Engines).
 */
export const VaultSecretKind = z.enum([
  'github',
  'gitlab',
  'generic',
  'ssh_private_key',
  'tls_certificate',
  'tls_private_key',
]);
export type VaultSecretKind = z.infer<typeof VaultSecretKind>;

/**
 * An agent credential's kind (an API key, an OAuth token): whatever core's agent drivers declare (`agent.get` lists
 * them with their labels and the agent kinds each signs in). The contract checks the shape; core refuses a kind no
 * driver declares, so a new agent kind with a new key needs no contract change (docs/agents.md).
 */
export const AgentCredentialKind = z
  .string()
  .regex(/^[a-z][a-z0-9_]{1,39}$/, 'a secret kind (see agent.get): lowercase letters, digits and underscores');
export type AgentCredentialKind = z.infer<typeof AgentCredentialKind>;

/** A secret's kind: one of the vault's own, or an agent credential kind a driver declares. */
export const SecretKind = z.union([VaultSecretKind, AgentCredentialKind]);
export type SecretKind = z.infer<typeof SecretKind>;

/** What may be shown of a secret: metadata and at most its last 4 characters. Never the value. */
export const SecretSummary = z.object({
  id: z.string(),
  name: z.string(),
  kind: SecretKind,
  host: z.string(),
  /** The value's last 4 characters; empty for values shorter than 8 characters. */
  last4: z.string().max(4),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type SecretSummary = z.infer<typeof SecretSummary>;

/** A recovery passphrase: long enough to resist guessing, short enough to type. */
export const Passphrase = z.string().min(8, 'use at least 8 characters').max(1024);
export const SecretName = z
  .string()
  .trim()
  .min(1, 'give the secret a name')
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, 'use letters, digits, spaces, dots, dashes and underscores');
export const SecretHost = z
  .string()
  .trim()
  .max(253)
  .regex(/^$|^[A-Za-z0-9.-]+(:\d{1,5})?$/, 'use a host name such as github.com (optionally with :port)');
export const SecretValue = z.string().min(1, 'the value is empty').max(16_384);

const empty = z.object({}).strict();

export const vaultOperations = {
  'vault.status': operation({
    summary: 'State of the vault (uninitialized, locked, unlocked) with the reason, key term and principals.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: empty,
    output: VaultStatus,
  }),
  'vault.init': operation({
    summary:
      'Set up the vault: a new data key, wrapped for the operator (the OS keychain, a passphrase when no keychain ' +
      'can take it, or the configured key file) and optionally for a recovery passphrase.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z
      .object({
        recoveryPassphrase: Passphrase.optional(),
        passphrase: Passphrase.optional().describe(
          'The vault passphrase, instead of the OS keychain: the vault is then sealed at every start until unlocked',
        ),
      })
      .strict(),
    output: VaultStatus,
  }),
  'vault.lock': operation({
    summary: 'Forget the data key in memory until the next unlock.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: empty,
    output: VaultStatus,
  }),
  'vault.unlock': operation({
    summary:
      'Unlock with the passphrase (the vault passphrase or the recovery one), or retry the OS keychain or key file ' +
      'when no passphrase is given.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ passphrase: z.string().min(1).max(1024).optional() }).strict(),
    output: VaultStatus,
  }),
  'vault.changePassphrase': operation({
    summary:
      'Set or change the recovery passphrase (for a passphrase vault: the vault passphrase); only that copy of the ' +
      'data key is rewrapped.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z
      .object({
        currentPassphrase: z
          .string()
          .min(1)
          .max(1024)
          .optional()
          .describe('Required when a recovery (or vault) passphrase is already set'),
        newPassphrase: Passphrase,
      })
      .strict(),
    output: VaultStatus,
  }),
  'secrets.list': operation({
    summary: 'Secrets in the vault: name, kind, host and the last 4 characters. Values never leave core.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: empty,
    output: z.object({ secrets: z.array(SecretSummary) }),
  }),
  'secrets.create': operation({
    summary: 'Store a provider token or other secret, sealed with the data key. The value is write-only.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ name: SecretName, kind: SecretKind, host: SecretHost.default(''), value: SecretValue }).strict(),
    output: SecretSummary,
  }),
  'secrets.update': operation({
    summary: 'Rename a secret, change its host or kind, or replace its value (write-only).',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z
      .object({
        id: z.string().min(1).max(100),
        name: SecretName.optional(),
        kind: SecretKind.optional(),
        host: SecretHost.optional(),
        value: SecretValue.optional(),
      })
      .strict(),
    output: SecretSummary,
  }),
  'secrets.delete': operation({
    summary: 'Delete a secret and its sealed value.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ id: z.string().min(1).max(100) }).strict(),
    output: z.object({ deleted: z.literal(true), id: z.string() }),
  }),
};

export const vaultEvents = {
  /** The vault was set up, locked, unlocked, rotated, or a principal changed. */
  'vault.changed': VaultStatus,
  /** A secret was created, updated (`secret`) or deleted (`removedId`). Never carries a value. */
  'secrets.changed': z.object({ secret: SecretSummary.nullable(), removedId: z.string().optional() }),
};
