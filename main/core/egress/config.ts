import { z } from 'zod';
import { parseAllowEntry } from './allow-list';

// Core's config section for egress by allow-list (config.ts composes the sections).

/** What the operator's machine reaches for packages: an internal mirror replaces the public registry here, once. */
export const EgressConfig = z.object({
  /**
   * The package registries every confined workspace may reach before the operator edits its list, beside its git
   * host and its recipe's `egress` (allow-list entries: host, `*.domain`, an address, each with an optional port).
   */
  registries: z
    .array(
      z
        .string()
        .max(300)
        .refine((e) => !('error' in parseAllowEntry(e)), 'an allow-list entry: host, *.domain or address[:port]'),
    )
    .max(100)
    .default(['registry.npmjs.org']),
});
export type EgressConfig = z.infer<typeof EgressConfig>;
