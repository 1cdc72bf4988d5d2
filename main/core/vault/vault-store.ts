import type { PrincipalKind, SecretKind } from '../../../shared/contract';
import type { Db } from '../store';
import { KekParams } from './principal-keys';

/** The two principals with a fixed id; every other one is a machine with an id of its own (machine-principal.ts). */
export const OPERATOR = 'operator';
export const RECOVERY = 'recovery';

export interface VaultMetaRow {
  vaultId: string;
  keychainAccount: string;
  dekTerm: number;
  createdAt: string;
  rotatedAt: string | null;
}

export interface PrincipalRow {
  id: string;
  kind: PrincipalKind;
  publicKey: Buffer;
  sealedPrivateKey: Buffer;
  kekParams: KekParams;
  dekTerm: number;
  wrappedDek: Buffer;
  dekEphemeralKey: Buffer;
  createdAt: string;
  updatedAt: string;
}

export interface SecretRow {
  id: string;
  name: string;
  kind: SecretKind;
  host: string;
  last4: string;
  dekTerm: number;
  sealedValue: Buffer;
  createdAt: string;
  updatedAt: string;
}

const PRINCIPAL_COLUMNS =
  'id, kind, public_key AS publicKey, sealed_private_key AS sealedPrivateKey, kek_params AS kekParams, ' +
  'dek_term AS dekTerm, wrapped_dek AS wrappedDek, dek_ephemeral_key AS dekEphemeralKey, ' +
  'created_at AS createdAt, updated_at AS updatedAt';
const SECRET_COLUMNS =
  'id, name, kind, host, last4, dek_term AS dekTerm, sealed_value AS sealedValue, created_at AS createdAt, updated_at AS updatedAt';

type RawPrincipal = Omit<PrincipalRow, 'kekParams'> & { kekParams: string };

/** SQL for the vault tables; no crypto here. */
export class VaultStore {
  constructor(readonly db: Db) {}

  meta(): VaultMetaRow | null {
    const row = this.db
      .prepare(
        'SELECT vault_id AS vaultId, keychain_account AS keychainAccount, dek_term AS dekTerm, ' +
          'created_at AS createdAt, rotated_at AS rotatedAt FROM vault_meta WHERE id = 1',
      )
      .get() as VaultMetaRow | undefined;
    return row ?? null;
  }

  insertMeta(m: VaultMetaRow): void {
    this.db
      .prepare(
        'INSERT INTO vault_meta (id, vault_id, keychain_account, dek_term, created_at, rotated_at) VALUES (1, ?, ?, ?, ?, ?)',
      )
      .run(m.vaultId, m.keychainAccount, m.dekTerm, m.createdAt, m.rotatedAt);
  }

  setTerm(term: number, at: string): void {
    this.db.prepare('UPDATE vault_meta SET dek_term = ?, rotated_at = ? WHERE id = 1').run(term, at);
  }

  principals(): PrincipalRow[] {
    return (
      this.db
        .prepare(`SELECT ${PRINCIPAL_COLUMNS} FROM vault_principals ORDER BY created_at, id`)
        .all() as RawPrincipal[]
    ).map(parsePrincipal);
  }

  principal(id: string): PrincipalRow | null {
    const row = this.db.prepare(`SELECT ${PRINCIPAL_COLUMNS} FROM vault_principals WHERE id = ?`).get(id) as
      RawPrincipal | undefined;
    return row ? parsePrincipal(row) : null;
  }

  /** Inserts or replaces the whole row (a rewrap replaces the copy of one principal only). */
  putPrincipal(p: PrincipalRow): void {
    this.db
      .prepare(
        `INSERT INTO vault_principals (id, kind, public_key, sealed_private_key, kek_params, dek_term, wrapped_dek,
           dek_ephemeral_key, created_at, updated_at)
         VALUES (@id, @kind, @publicKey, @sealedPrivateKey, @kekParams, @dekTerm, @wrappedDek, @dekEphemeralKey,
           @createdAt, @updatedAt)
         ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, public_key = excluded.public_key,
           sealed_private_key = excluded.sealed_private_key,
           kek_params = excluded.kek_params, dek_term = excluded.dek_term, wrapped_dek = excluded.wrapped_dek,
           dek_ephemeral_key = excluded.dek_ephemeral_key, updated_at = excluded.updated_at`,
      )
      .run({ ...p, kekParams: JSON.stringify(p.kekParams) });
  }

  setWrappedDek(id: string, term: number, wrapped: Buffer, ephemeralKey: Buffer, at: string): void {
    this.db
      .prepare(
        'UPDATE vault_principals SET dek_term = ?, wrapped_dek = ?, dek_ephemeral_key = ?, updated_at = ? WHERE id = ?',
      )
      .run(term, wrapped, ephemeralKey, at, id);
  }

  deletePrincipal(id: string): boolean {
    return this.db.prepare('DELETE FROM vault_principals WHERE id = ?').run(id).changes > 0;
  }

  secrets(): SecretRow[] {
    return this.db
      .prepare(`SELECT ${SECRET_COLUMNS} FROM secrets ORDER BY name COLLATE NOCASE, id`)
      .all() as SecretRow[];
  }

  secret(id: string): SecretRow | null {
    return (
      (this.db.prepare(`SELECT ${SECRET_COLUMNS} FROM secrets WHERE id = ?`).get(id) as SecretRow | undefined) ?? null
    );
  }

  secretByName(name: string): SecretRow | null {
    return (
      (this.db.prepare(`SELECT ${SECRET_COLUMNS} FROM secrets WHERE name = ?`).get(name) as SecretRow | undefined) ??
      null
    );
  }

  putSecret(s: SecretRow): void {
    this.db
      .prepare(
        `INSERT INTO secrets (id, name, kind, host, last4, dek_term, sealed_value, created_at, updated_at)
         VALUES (@id, @name, @kind, @host, @last4, @dekTerm, @sealedValue, @createdAt, @updatedAt)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, kind = excluded.kind, host = excluded.host, last4 = excluded.last4,
           dek_term = excluded.dek_term, sealed_value = excluded.sealed_value, updated_at = excluded.updated_at`,
      )
      .run(s);
  }

  setSealedValue(id: string, term: number, sealed: Buffer): void {
    this.db.prepare('UPDATE secrets SET dek_term = ?, sealed_value = ? WHERE id = ?').run(term, sealed, id);
  }

  deleteSecret(id: string): boolean {
    return this.db.prepare('DELETE FROM secrets WHERE id = ?').run(id).changes > 0;
  }
}

function parsePrincipal(row: RawPrincipal): PrincipalRow {
  return { ...row, kekParams: KekParams.parse(JSON.parse(row.kekParams)) };
}
