import type { Db } from '../store';
import type { CoreSecretName } from './core-secret';

export interface CoreSecretRow extends CoreSecretName {
  dekTerm: number;
  sealedValue: Buffer;
  updatedAt: string;
}

const COLUMNS = 'service, account, dek_term AS dekTerm, sealed_value AS sealedValue, updated_at AS updatedAt';

/** SQL for `core_secrets` (core's own secrets sealed with the data key where no keychain answers); no crypto here. */
export class CoreSecretStore {
  constructor(private readonly db: Db) {}

  get(name: CoreSecretName): CoreSecretRow | null {
    return (
      (this.db
        .prepare(`SELECT ${COLUMNS} FROM core_secrets WHERE service = ? AND account = ?`)
        .get(name.service, name.account) as CoreSecretRow | undefined) ?? null
    );
  }

  all(): CoreSecretRow[] {
    return this.db.prepare(`SELECT ${COLUMNS} FROM core_secrets ORDER BY service, account`).all() as CoreSecretRow[];
  }

  put(row: CoreSecretRow): void {
    this.db
      .prepare(
        `INSERT INTO core_secrets (service, account, dek_term, sealed_value, updated_at)
         VALUES (@service, @account, @dekTerm, @sealedValue, @updatedAt)
         ON CONFLICT (service, account) DO UPDATE SET dek_term = excluded.dek_term,
           sealed_value = excluded.sealed_value, updated_at = excluded.updated_at`,
      )
      .run(row);
  }

  /** Same row, a new key term (a rotation). */
  reseal(name: CoreSecretName, term: number, sealed: Buffer): void {
    this.db
      .prepare('UPDATE core_secrets SET dek_term = ?, sealed_value = ? WHERE service = ? AND account = ?')
      .run(term, sealed, name.service, name.account);
  }

  delete(name: CoreSecretName): boolean {
    return (
      this.db.prepare('DELETE FROM core_secrets WHERE service = ? AND account = ?').run(name.service, name.account)
        .changes > 0
    );
  }
}

/** What a core secret's sealed value is bound to: opening it under another name fails. */
export const coreSecretBinding = (name: CoreSecretName) => ({
  recordId: `${name.service}\n${name.account}`,
  field: 'core_secret',
});
