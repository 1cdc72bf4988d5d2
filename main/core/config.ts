import { z } from 'zod';
import { AgentConfig } from './agents';
import { DockerConfig } from './docker';
import { EgressConfig } from './egress';
import { RulesConfig } from './permissions';
import { NatsConfig } from './platform';
import { QuotaConfig } from './workspaces';
import { SessionsConfig } from './sessions';
import { TrackerConfig } from './tracker';

/** Core configuration. Everything has a default so `createCore({ dataDir })` works. */
export const CoreConfig = z.object({
  version: z.string().default('0.0.0-dev'),
  docker: DockerConfig.prefault({}),
  tracker: TrackerConfig,
  nats: NatsConfig.prefault({}),
  quota: QuotaConfig.prefault({}),
  /** How sessions launch the agent (see docs/sessions.md). */
  sessions: SessionsConfig.prefault({}),
  /** The pinned agent CLI in workers, and where its model calls go. */
  agent: AgentConfig.prefault({}),
  /** The approval rules (docs/permissions.md). */
  rules: RulesConfig.prefault({}),
  /** Egress by allow-list: the registries confined workspaces reach by default (docs/security.md). */
  egress: EgressConfig.prefault({}),
  /** The model gateway every session's model traffic goes through (docs/gateway.md). */
  gateway: z
    .object({
      /** Its port on the workers' host address (0: any free port). */
      port: z.number().int().min(0).max(65535).default(4782),
      /** A PEM file of CAs trusted for upstream TLS besides the system's (NEXUS_GATEWAY_UPSTREAM_CA; tests: theirs). */
      upstreamCa: z.string().min(1).optional(),
    })
    .prefault({}),
  /** The MCP stdio bridge as Claude Desktop starts it, and where Claude Desktop keeps its config. */
  mcp: z
    .object({
      /** How Claude Desktop starts `nexus mcp-stdio`: the executable and the arguments before it. */
      stdioLauncher: z
        .object({
          command: z.string().min(1),
          args: z.array(z.string()),
          env: z.record(z.string(), z.string()).optional(),
        })
        .optional(),
      /** Claude Desktop's config file; the platform's path by default. */
      claudeDesktopConfig: z.string().optional(),
      /** The worker-facing MCP listener on the workers' bridge gateway (0: any free port). */
      delegationPort: z.number().int().min(0).max(65535).default(4781),
      /** Calls per workspace from its delegated credential: a burst, refilled per minute. */
      delegationRateLimit: z
        .object({ perMinute: z.number().int().min(1).default(60), burst: z.number().int().min(1).default(20) })
        .prefault({}),
    })
    .prefault({}),
  /** The vault key file for unattended unlock (a service); see docs/vault.md. */
  vault: z.object({ keyFile: z.string().optional() }).prefault({}),
  /** Also print log lines to stderr. */
  logToStderr: z.boolean().default(false),
});
export type CoreConfig = z.infer<typeof CoreConfig>;
export type CoreConfigInput = z.input<typeof CoreConfig>;
