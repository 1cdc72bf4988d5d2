/**
 * The one redaction choke point. Every result, event and log line that leaves core passes through
 * a Redactor, which masks:
 *  - values it has been told are secret (vault values as they are decrypted, tokens, env secrets);
 *  - values of secret-shaped names (`*KEY*`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`), both as
 *    `NAME=value` text and as object properties;
 *  - well-known credential shapes (Nexus tokens, GitHub/GitLab/Slack/AWS/Anthropic keys, PEM keys).
 */
export const REDACTED = '[REDACTED]';

/** Env var names that look secret. */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;
/** Secret-shaped names that hold paths, not secrets (the vault key file's location is shown in Settings → Vault). */
const PATH_NAMES = new Set(['NEXUS_VAULT_KEY_FILE', 'CREDENTIALS_DIRECTORY']);
/** Object properties whose string value is masked whatever it holds (`apiKey`, `github_token`...). */
const SECRET_PROPERTY = /(key|token|secret|password|passwd|passphrase|credentials?)$/i;

const TOKEN_SHAPES: RegExp[] = [
  /\bnxs_[rwv]_[A-Za-z0-9_-]{16,}/g,
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bsk-ant-[A-Za-z0-9_-]{20,}/g,
  /\bsk-[A-Za-z0-9]{32,}/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];
/** `NAME=value`, `NAME: value`, `"NAME": "value"` where NAME looks secret. */
const ASSIGNMENT =
  /(["']?)([A-Za-z0-9_.-]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)[A-Za-z0-9_]*)\1(\s*[:=]\s*)(["']?)([^\s"',;}]{4,})\4/gi;
/** user:password@ in URLs. */
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:)([^@\s/]+)@/gi;

/**
 * A cheap first pass: every pattern above starts with one of these literals, so a string without
 * any of them skips the eleven passes (most strings in a result are ordinary prose and ids).
 */
const MAY_MATCH = /nxs_|gh[pousr]_|github_pat_|glpat-|xox[abprs]-|AKIA|sk-|-----BEGIN|key|token|secret|passw|:\/\//i;

const MIN_SECRET_LENGTH = 6;
/**
 * Strings up to this length that came out of `text()` unchanged are remembered as clean (ids,
 * names, states and reasons repeat in every result), until the registered secrets change; a
 * string that needed masking is never remembered, so no secret is kept here.
 */
const CLEAN_TEXT_MAX_LENGTH = 512;
const CLEAN_CACHE_ENTRIES = 20_000;
const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export class Redactor {
  private readonly secrets = new Set<string>();
  /** Every registered secret in one alternation, longest first; null when there is none. */
  private known: RegExp | null = null;
  /** Strings known to need no masking under the current secrets. */
  private readonly clean = new Set<string>();
  /** Object property names and whether they name a secret (the same few names recur). */
  private readonly secretProperty = new Map<string, boolean>();

  /** Registers a value that must never leave core in clear. Short values are ignored (too noisy). */
  addSecret(value: string | null | undefined): void {
    if (!value || value.length < MIN_SECRET_LENGTH || this.secrets.has(value)) return;
    this.secrets.add(value);
    this.compile();
  }

  removeSecret(value: string): void {
    if (this.secrets.delete(value)) this.compile();
  }

  private compile(): void {
    const sorted = [...this.secrets].sort((a, b) => b.length - a.length);
    this.known = sorted.length ? new RegExp(sorted.map(escapeRegExp).join('|'), 'g') : null;
    this.clean.clear();
  }

  /** Registers the values of secret-shaped environment variables. */
  addEnvSecrets(env: NodeJS.ProcessEnv): void {
    for (const [name, value] of Object.entries(env))
      if (SECRET_NAME.test(name) && !PATH_NAMES.has(name)) this.addSecret(value);
  }

  text(input: string): string {
    if (this.clean.has(input)) return input;
    const out = this.mask(input);
    if (out === input && input.length <= CLEAN_TEXT_MAX_LENGTH) {
      if (this.clean.size >= CLEAN_CACHE_ENTRIES) this.clean.clear();
      this.clean.add(input);
    }
    return out;
  }

  private mask(input: string): string {
    let out = this.known ? input.replace(this.known, REDACTED) : input;
    if (!MAY_MATCH.test(out)) return out;
    for (const shape of TOKEN_SHAPES) out = out.replace(shape, REDACTED);
    out = out.replace(
      ASSIGNMENT,
      (_m, q1: string, name: string, sep: string, q2: string) => `${q1}${name}${q1}${sep}${q2}${REDACTED}${q2}`,
    );
    out = out.replace(URL_CREDENTIALS, (_m, head: string) => `${head}${REDACTED}@`);
    return out;
  }

  /** Deep copy of `value` with every string redacted and secret-named string properties masked. */
  value<T>(value: T): T {
    return this.walk(value, 0) as T;
  }

  private walk(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.text(value);
    if (value === null || typeof value !== 'object' || depth > 32) return value;
    if (Array.isArray(value)) return value.map((v) => this.walk(v, depth + 1));
    if (value instanceof Date) return value;
    if (value instanceof Error) {
      const code = (value as { code?: unknown }).code;
      return { name: value.name, message: this.text(value.message), ...(typeof code === 'string' ? { code } : {}) };
    }
    const out: Record<string, unknown> = {};
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const v = record[key];
      out[key] = typeof v === 'string' && v.length > 0 && this.namesSecret(key) ? REDACTED : this.walk(v, depth + 1);
    }
    return out;
  }

  private namesSecret(key: string): boolean {
    let secret = this.secretProperty.get(key);
    if (secret === undefined) {
      secret = SECRET_PROPERTY.test(key);
      if (this.secretProperty.size >= CLEAN_CACHE_ENTRIES) this.secretProperty.clear();
      this.secretProperty.set(key, secret);
    }
    return secret;
  }
}
