import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import { NexusError } from '../../shared/errors';
import type { ResolvedSecret, SecretSource } from '../../main/core/docker/secret-source';

/**
 * A SecretSource for tests until the vault is wired in: values are sealed with AES-256-GCM under
 * a random key (AAD = the secret id) and opened only in `resolve`, like the vault does.
 */
export class SealedSecrets implements SecretSource {
  private readonly key = randomBytes(32);
  private readonly sealed = new Map<string, { iv: Buffer; data: Buffer; tag: Buffer; host: string | null; kind: string }>();
  resolves = 0;

  add(value: string, host: string | null = null, kind = 'github_token'): string {
    const id = randomUUID();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(id));
    const data = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    this.sealed.set(id, { iv, data, tag: cipher.getAuthTag(), host, kind });
    return id;
  }

  resolve(secretId: string): Promise<ResolvedSecret> {
    const s = this.sealed.get(secretId);
    if (!s) return Promise.reject(new NexusError('not_found', `Secret "${secretId}" not found.`));
    this.resolves++;
    const decipher = createDecipheriv('aes-256-gcm', this.key, s.iv).setAAD(Buffer.from(secretId));
    decipher.setAuthTag(s.tag);
    const value = Buffer.concat([decipher.update(s.data), decipher.final()]).toString('utf8');
    return Promise.resolve({ value, host: s.host, kind: s.kind });
  }
}
