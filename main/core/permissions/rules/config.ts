import { z } from 'zod';

// Core's config section for the approval rules (config.ts composes the sections).

/** The approval rules (docs/permissions.md). */
export const RulesConfig = z.object({
  /** Hosts the default set lets an agent fetch from unasked (host globs); unset: docs and package registries. */
  fetchHosts: z
    .array(z.string().regex(/^[a-z0-9*?.-]{1,253}$/i, 'a host or host glob'))
    .max(500)
    .optional(),
});
export type RulesConfig = z.infer<typeof RulesConfig>;
