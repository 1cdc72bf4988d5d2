import { z } from 'zod';
import { AgentConfig } from './agents';
import { SessionsConfig } from './sessions/config';
import { TrackerConfig } from './tracker/config';

/** Core configuration. Everything has a default so `createCore({ dataDir })` works. */
export const CoreConfig = z.object({
  version: z.string().default('0.0.0-dev'),
  docker: z
    .object({
      /** Unix socket of the engine; DOCKER_HOST style URLs are not supported yet. */
      socketPath: z.string().default('/var/run/docker.sock'),
      /** Network for worker containers: a dedicated bridge by default, `host` in tests. */
      network: z.string().default('nexus'),
      /** Image for new workspaces; built on demand from resources/worker when absent. */
      image: z.string().optional(),
      baseImage: z.string().optional(),
      memoryBytes: z
        .number()
        .int()
        .positive()
        .default(4 * 1024 ** 3),
      pidsLimit: z.number().int().positive().default(1024),
    })
    .prefault({}),
  tracker: TrackerConfig,
  nats: z
    .object({
      /** An existing server or cluster to use instead of the managed child. */
      url: z.string().optional(),
      /**
       * The one address the managed server listens on. Default: where workers reach the host on
       * `docker.network` (its bridge gateway; 127.0.0.1 for `host`). Never every interface.
       */
      host: z
        .string()
        .refine((h) => !['0.0.0.0', '::', '[::]', ''].includes(h), {
          message: 'nats.host must be one address, not every interface',
        })
        .optional(),
      /** 0 picks a free port. */
      port: z.number().int().min(0).max(65535).default(0),
      binary: z.string().default('nats-server'),
      /**
       * Where remote engines' leaf nodes dial in, on 127.0.0.1 only (they arrive through the engine's SSH remote
       * forward, and each authenticates with its engine's leaf JWT). Default 0: a free port, so an SSH engine works
       * without configuration; set a port to pin it.
       */
      leafPort: z.number().int().min(0).max(65535).default(0),
      /** What carries a remote engine's leaf link: OpenSSH's `ssh -N -R` child (default; ssh2 when no `ssh`), or ssh2. */
      leafForwarder: z.enum(['openssh', 'ssh2']).default('openssh'),
    })
    .prefault({}),
  quota: z
    .object({
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
    })
    .prefault({}),
  /** How sessions launch the agent (see docs/sessions.md). */
  sessions: SessionsConfig.prefault({}),
  /** The pinned agent CLI in workers, and where its model calls go. */
  agent: AgentConfig.prefault({}),
  /** The approval rules (docs/permissions.md). */
  rules: z
    .object({
      /** Hosts the default set lets an agent fetch from unasked (host globs); unset: docs and package registries. */
      fetchHosts: z
        .array(z.string().regex(/^[a-z0-9*?.-]{1,253}$/i, 'a host or host glob'))
        .max(500)
        .optional(),
    })
    .prefault({}),
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
      fleetPort: z.number().int().min(0).max(65535).default(4781),
      /** Calls per workspace from its fleet credential: a burst, refilled per minute. */
      fleetRateLimit: z
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
