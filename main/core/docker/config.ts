import { z } from 'zod';

// Core's config section for the Docker engine and its worker containers (config.ts composes the sections).

export const DockerConfig = z.object({
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
});
export type DockerConfig = z.infer<typeof DockerConfig>;
