import { z } from 'zod';
import { operation } from './define';

/** The three MCP credential classes (never `operator`): each includes the ones before it. */
export const TokenClass = z.enum(['read', 'write', 'vault']);
export type TokenClass = z.infer<typeof TokenClass>;

/** The visible prefix of each class: nxs_r_…, nxs_w_…, nxs_v_… */
export const tokenPrefixes: Record<TokenClass, string> = { read: 'nxs_r_', write: 'nxs_w_', vault: 'nxs_v_' };

export const TokenState = z.enum(['active', 'expired', 'revoked']);
export type TokenState = z.infer<typeof TokenState>;

export const MAX_TOKEN_DAYS = 365;
export const DEFAULT_TOKEN_DAYS = 90;

/** What the app keeps about a token: never the secret, never the hash. */
export const TokenInfo = z.object({
  id: z.string(),
  name: z.string(),
  class: TokenClass,
  /** The class prefix and the first characters, e.g. `nxs_w_Ab3d…`, so the operator can tell tokens apart. */
  hint: z.string(),
  state: TokenState,
  createdAt: z.string(),
  expiresAt: z.string(),
  revokedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});
export type TokenInfo = z.infer<typeof TokenInfo>;

export const TokenName = z
  .string()
  .trim()
  .min(1)
  .max(80)
  .describe('A name that says who holds the token, e.g. "Claude Desktop"');
export const TokenDays = z
  .number()
  .int()
  .min(1)
  .max(MAX_TOKEN_DAYS)
  .describe(`Days until the token expires (1-${MAX_TOKEN_DAYS}, default ${DEFAULT_TOKEN_DAYS})`);

export const tokenOperations = {
  'tokens.create': operation({
    summary: 'Create an MCP token of a class; the secret is returned this once and never again.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ name: TokenName, class: TokenClass, expiresInDays: TokenDays.optional() }).strict(),
    output: z.object({ token: TokenInfo, secret: z.string() }),
    revealsOnce: 'secret',
  }),
  'tokens.list': operation({
    summary: 'Every MCP token: class, state, expiry and when it was last used (never the secret).',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: z.object({ tokens: z.array(TokenInfo) }),
  }),
  'tokens.revoke': operation({
    summary: 'Revoke an MCP token at once; a vault token also loses its vault principal (the data key rotates).',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ id: z.string().min(1).max(100) }).strict(),
    output: TokenInfo,
  }),
};

export const tokenEvents = {
  'tokens.changed': z.object({ token: TokenInfo }),
};
