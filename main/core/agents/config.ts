import { z } from 'zod';

/** One agent kind's settings (env: `NEXUS_<KIND>_CLI_DIR`, `NEXUS_<KIND>_BASE_URL`; see registry.ts). */
export const AgentKindSettings = z
  .object({
    /**
     * An existing install of the kind's pinned CLI (what its install script prints); unset = the shared install in
     * /var/cache/nexus-agent-cli, else what the kind does without one (Claude Code: Nexus installs it with npm).
     */
    cliDir: z.string().min(1).optional(),
    /** The model endpoint every session of the kind uses: an LLM gateway or proxy (tests: the model stand-in). */
    baseUrl: z.url().optional(),
  })
  .strict();

/** The agents in workers (see docs/agents.md). Every field has a default. */
export const AgentConfig = z
  .object({
    /** Per agent kind (a key of agents/registry.ts). */
    kinds: z.record(z.string(), AgentKindSettings).default({}),
    /** A session whose agent has not reported SessionStart within this time is put in error with what its pane shows. */
    startupTimeoutMs: z.number().int().positive().default(60_000),
  })
  .strict();
export type AgentConfig = z.infer<typeof AgentConfig>;
