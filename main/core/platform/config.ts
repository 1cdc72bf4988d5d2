import { z } from 'zod';

// Core's config section for the platform's NATS server (config.ts composes the sections).

export const NatsConfig = z.object({
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
});
export type NatsConfig = z.infer<typeof NatsConfig>;
