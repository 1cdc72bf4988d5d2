import { z } from 'zod';

/** The agent CLI in workers (see docs/sessions.md, "The agent CLI"). Every field has a default. */
export const AgentConfig = z
  .object({
    /**
     * An existing install of the pinned CLI (an npm prefix, or the platform package's directory),
     * e.g. what scripts/install-agent-cli.sh prints; unset = Nexus installs it with npm into its data dir.
     */
    cliDir: z.string().min(1).optional(),
    /**
     * An existing install of the pinned Codex CLI (what scripts/install-codex-cli.sh prints); unset = the shared
     * install in /var/cache/nexus-agent-cli/codex-<version>, if there is one (Nexus does not download Codex itself).
     */
    codexCliDir: z.string().min(1).optional(),
    /** The Responses-API base URL for Codex sessions (NEXUS_CODEX_BASE_URL; tests: the model stand-in). */
    codexBaseUrl: z.url().optional(),
    /** ANTHROPIC_BASE_URL for every session: an LLM gateway or proxy (tests: the model stand-in). */
    baseUrl: z.url().optional(),
    /** A session whose agent has not reported SessionStart within this time is put in error with what its pane shows. */
    startupTimeoutMs: z.number().int().positive().default(60_000),
  })
  .strict();
export type AgentConfig = z.infer<typeof AgentConfig>;
