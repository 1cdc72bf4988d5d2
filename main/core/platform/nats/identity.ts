import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAccount, createOperator, createUser, type KeyPair } from '@nats-io/nkeys';
import { z } from 'zod';
import { accountJwt, credsFile, operatorJwt, userJwt } from './jwt';
import { bearerUserKey, NkeySigner } from './nkey-codec';
import type { NatsGrant, NatsUser } from '../permissions';
import { safeJson } from '../../safe-json';

const revocationSchema = z.object({ at: z.number().int(), until: z.number().int().nullable() });
const fileSchema = z.object({
  version: z.literal(1),
  operatorSeed: z.string().startsWith('SO'),
  accountSeed: z.string().startsWith('SA'),
  signingSeed: z.string().startsWith('SA'),
  operatorJwt: z.string().min(1),
  revocations: z.record(z.string(), revocationSchema),
});
type IdentityFile = z.infer<typeof fileSchema>;

const seconds = (ms: number): number => Math.floor(ms / 1000);

/**
 * Nexus's NATS trust chain, made once per data dir and kept in `<dir>/identity.json` (0600): an
 * operator key, the `nexus` account's identity key and the account's signing key, the operator JWT
 * (signed once: nats-server refuses a reload whose operator JWT changed) and the account's
 * revocations. Any nats-server whose config trusts this operator (core's, a leaf on a remote
 * engine) checks a run's user JWT with no config of its own per run. The seeds never leave core:
 * servers get only the JWTs. Why the data dir and not the vault: see docs/platform-tools.md.
 */
export class NatsIdentity {
  private readonly operator: NkeySigner;
  private readonly signer: NkeySigner;
  /** The account's public key (its identity; `A…`). */
  readonly account: string;

  private constructor(
    private readonly file: string,
    private readonly data: IdentityFile,
    /** True when the keys were made now: no JWT issued before can be valid. */
    readonly fresh: boolean,
  ) {
    this.operator = new NkeySigner(data.operatorSeed);
    this.signer = new NkeySigner(data.signingSeed);
    this.account = new NkeySigner(data.accountSeed).getPublicKey();
  }

  static open(dir: string): NatsIdentity {
    const file = join(dir, 'identity.json');
    if (existsSync(file)) {
      const parsed = fileSchema.safeParse(safeJson(readFileSync(file, 'utf8')));
      if (parsed.success) return new NatsIdentity(file, parsed.data, false);
    }
    const operator = createOperator();
    const data: IdentityFile = {
      version: 1,
      operatorSeed: seedOf(operator),
      accountSeed: seedOf(createAccount()),
      signingSeed: seedOf(createAccount()),
      operatorJwt: operatorJwt(operator, 'nexus'),
      revocations: {},
    };
    const identity = new NatsIdentity(file, data, true);
    identity.save();
    return identity;
  }

  /** The operator JWT every trusting server is configured with. */
  get operatorJwt(): string {
    return this.data.operatorJwt;
  }

  /** The account JWT as of now: its signing key and its revocations. */
  accountJwt(): string {
    const revocations: Record<string, number> = {};
    for (const [user, r] of Object.entries(this.data.revocations)) revocations[user] = r.at;
    return accountJwt(this.operator, this.account, {
      name: 'nexus',
      signingKey: this.signer.getPublicKey(),
      revocations,
    });
  }

  /**
   * A user JWT for one grant, signed by the account's signing key, valid `ttlMs` (null: until revoked).
   * It is a bearer JWT: the JWT alone is the credential (the client signs no nonce), handed over
   * like the passwords before it, through a tmpfs file. Its `password` is the JWT.
   */
  issue(grant: NatsGrant, ttlMs: number | null, now = Date.now()): NatsUser {
    const publicKey = bearerUserKey();
    const exp = ttlMs === null ? null : seconds(now + ttlMs);
    const jwt = userJwt(this.signer, this.account, {
      user: publicKey,
      name: grant.user,
      pub: grant.permissions.publish,
      sub: grant.permissions.subscribe,
      ...(exp !== null ? { exp } : {}),
      bearer: true,
    });
    return { ...grant, password: jwt, publicKey, exp };
  }

  /**
   * A user that signs the server's nonce (not a bearer): its creds file (JWT + seed) is what a leaf
   * node's remote reads. Used for a leaf node's connection to core's server.
   */
  issueCreds(grant: NatsGrant, ttlMs: number | null, now = Date.now()): { user: NatsUser; creds: string } {
    const user = createUser();
    const exp = ttlMs === null ? null : seconds(now + ttlMs);
    const jwt = userJwt(this.signer, this.account, {
      user: user.getPublicKey(),
      name: grant.user,
      pub: grant.permissions.publish,
      sub: grant.permissions.subscribe,
      ...(exp !== null ? { exp } : {}),
    });
    return {
      user: { ...grant, password: jwt, publicKey: user.getPublicKey(), exp },
      creds: credsFile(jwt, user.getSeed()),
    };
  }

  /**
   * Refuses every JWT of these users from the next account JWT a server loads (the server drops
   * their open connections on that reload). Kept until the user's JWT would have expired anyway.
   */
  revoke(users: { publicKey: string; exp: number | null }[], now = Date.now()): void {
    const at = seconds(now);
    for (const [user, r] of Object.entries(this.data.revocations))
      if (r.until !== null && r.until < at) delete this.data.revocations[user];
    for (const u of users) this.data.revocations[u.publicKey] = { at, until: u.exp };
    this.save();
  }

  /** Whether this user is among the revoked. */
  revoked(publicKey: string): boolean {
    return publicKey in this.data.revocations;
  }

  private save(): void {
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.data, null, 2), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}

function seedOf(kp: KeyPair): string {
  return new TextDecoder().decode(kp.getSeed());
}
