import { randomUUID } from 'node:crypto';
import { VaultSecretKind, type SecretKind, type SecretSummary } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';
import type { EventBus } from '../events';
import type { Redactor } from '../redact';
import { open, seal } from './crypto';
import type { Dek } from './dek';
import type { SecretRow, VaultStore } from './vault-store';

/** What the Docker code gets for a secret id; stays inside core. */
export interface ResolvedSecret {
  value: string;
  kind: SecretKind;
  host: string;
  name: string;
}

export interface NewSecret {
  name: string;
  kind: SecretKind;
  host: string;
  value: string;
}

export interface SecretChanges {
  id: string;
  name?: string;
  kind?: SecretKind;
  host?: string;
  value?: string;
}

/** Values shorter than this show no characters at all in listings. */
const HINT_MIN_LENGTH = 8;
const binding = (id: string) => ({ recordId: id, field: 'value' });

/**
 * Provider tokens and other secrets, sealed with the vault's data key. Values go in and never come
 * back out through an operation: listings carry metadata and the last 4 characters only.
 */
export class SecretStore {
  constructor(
    private readonly store: VaultStore,
    private readonly requireDek: () => Dek,
    private readonly redactor: Redactor,
    private readonly events: EventBus,
    /** The agent credential kinds core's agent drivers declare: a secret's kind is one of them or the vault's own. */
    private readonly agentCredentialKinds: () => readonly string[],
  ) {}

  /** Metadata only: works while the vault is locked. */
  list(): SecretSummary[] {
    return this.store.meta() ? this.store.secrets().map(summary) : [];
  }

  create(input: NewSecret): SecretSummary {
    this.checkKind(input.kind);
    const dek = this.requireDek();
    this.redactor.addSecret(input.value);
    if (this.store.secretByName(input.name))
      throw new NexusError('conflict', `A secret named "${input.name}" already exists.`);
    const id = randomUUID();
    const now = new Date().toISOString();
    const row: SecretRow = {
      id,
      name: input.name,
      kind: input.kind,
      host: input.host,
      last4: hint(input.value),
      dekTerm: dek.term,
      sealedValue: seal(dek.key, dek.term, Buffer.from(input.value, 'utf8'), binding(id)),
      createdAt: now,
      updatedAt: now,
    };
    this.store.putSecret(row);
    return this.changed(row);
  }

  update(changes: SecretChanges): SecretSummary {
    const existing = this.mustGet(changes.id);
    if (changes.kind !== undefined && changes.kind !== existing.kind) this.checkKind(changes.kind);
    if (changes.name !== undefined && changes.name !== existing.name && this.store.secretByName(changes.name)) {
      throw new NexusError('conflict', `A secret named "${changes.name}" already exists.`);
    }
    const row: SecretRow = {
      ...existing,
      name: changes.name ?? existing.name,
      kind: changes.kind ?? existing.kind,
      host: changes.host ?? existing.host,
      updatedAt: new Date().toISOString(),
    };
    if (changes.value !== undefined) {
      const dek = this.requireDek();
      this.redactor.addSecret(changes.value);
      row.last4 = hint(changes.value);
      row.dekTerm = dek.term;
      row.sealedValue = seal(dek.key, dek.term, Buffer.from(changes.value, 'utf8'), binding(row.id));
    }
    this.store.putSecret(row);
    return this.changed(row);
  }

  delete(id: string): { deleted: true; id: string } {
    if (!this.store.deleteSecret(id)) throw new NexusError('not_found', `No secret with id "${id}".`);
    this.events.emit('secrets.changed', { secret: null, removedId: id });
    return { deleted: true, id };
  }

  /** Decrypts one value for core's own use (the Docker code). Registers it with the redactor. */
  resolve(id: string): ResolvedSecret {
    const dek = this.requireDek();
    const row = this.mustGet(id);
    const value = open(dek.key, dek.term, row.sealedValue, binding(row.id)).toString('utf8');
    this.redactor.addSecret(value);
    return { value, kind: row.kind, host: row.host, name: row.name };
  }

  /** After an unlock: every value is known to the redactor before anything could print it. */
  registerAll(): void {
    const dek = this.requireDek();
    for (const row of this.store.secrets()) {
      try {
        this.redactor.addSecret(open(dek.key, dek.term, row.sealedValue, binding(row.id)).toString('utf8'));
      } catch {
        // A damaged row fails loudly when it is resolved; unlocking must still work for the others.
      }
    }
  }

  /** A kind neither the vault's own nor one a driver declares is a bad request naming those there are. */
  private checkKind(kind: string): void {
    const agents = this.agentCredentialKinds();
    if (VaultSecretKind.safeParse(kind).success || agents.includes(kind)) return;
    throw new NexusError(
      'bad_request',
      `No secret kind "${kind.slice(0, 40)}" in this Nexus: use one of ${VaultSecretKind.options.join(', ')}` +
        `${agents.length ? `, or an agent credential kind its agents declare (${agents.join(', ')})` : ''}.`,
    );
  }

  private mustGet(id: string): SecretRow {
    const row = this.store.secret(id);
    if (!row) throw new NexusError('not_found', `No secret with id "${id}".`);
    return row;
  }

  private changed(row: SecretRow): SecretSummary {
    const s = summary(row);
    this.events.emit('secrets.changed', { secret: s });
    return s;
  }
}

function hint(value: string): string {
  return [...value].length >= HINT_MIN_LENGTH ? [...value].slice(-4).join('') : '';
}

function summary(row: SecretRow): SecretSummary {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    host: row.host,
    last4: row.last4,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
