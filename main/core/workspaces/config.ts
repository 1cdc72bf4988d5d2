import { z } from 'zod';

// Core's config section for how many workspaces and sessions one Nexus holds (config.ts composes the sections).

export const QuotaConfig = z.object({
  maxWorkspaces: z.number().int().positive().default(20),
  maxSessionsPerWorkspace: z.number().int().positive().default(16),
  /**
   * What one session (its agent CLI, nexus-mcp, the tools it runs) takes of its workspace container's
   * `docker.memoryBytes`: a create is refused when the container cannot hold one more at this figure
   * (sessions/memory/memory-admission.ts). 256 MiB: measured 165 MB a session idle (the whole container over its
   * sessions), 217–277 MB mid-turn in the soak; 2 GiB holds 8, the 4 GiB default 16 (docs/performance.md).
   */
  sessionMemoryBytes: z
    .number()
    .int()
    .positive()
    .default(256 * 1024 ** 2),
});
export type QuotaConfig = z.infer<typeof QuotaConfig>;
