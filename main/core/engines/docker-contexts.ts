import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { DockerContext } from '../../../shared/contract';

const Meta = z.object({
  Name: z.string(),
  Endpoints: z.object({ docker: z.object({ Host: z.string(), SkipTLSVerify: z.boolean().optional() }).optional() }),
});

/**
 * The Docker CLI's contexts (`~/.docker/contexts/meta/<sha256(name)>/meta.json`, TLS material under
 * `contexts/tls/<sha256(name)>/docker`, the current one in `config.json`), read for an import. Nexus
 * does not follow contexts at run time: an imported one becomes an engine record.
 */
export function readDockerContexts(dockerDir: string): DockerContext[] {
  const metaDir = join(dockerDir, 'contexts', 'meta');
  if (!existsSync(metaDir)) return [];
  let current: string | null = null;
  try {
    const cfg = JSON.parse(readFileSync(join(dockerDir, 'config.json'), 'utf8')) as { currentContext?: unknown };
    current = typeof cfg.currentContext === 'string' ? cfg.currentContext : null;
  } catch {
    // no config.json: no current context
  }
  const out: DockerContext[] = [];
  for (const dir of readdirSync(metaDir).sort()) {
    let meta: z.infer<typeof Meta>;
    try {
      meta = Meta.parse(JSON.parse(readFileSync(join(metaDir, dir, 'meta.json'), 'utf8')));
    } catch {
      continue;
    }
    const host = meta.Endpoints.docker?.Host;
    if (!host) continue;
    const hash = createHash('sha256').update(meta.Name).digest('hex');
    out.push({
      name: meta.Name,
      host,
      tls: existsSync(join(dockerDir, 'contexts', 'tls', hash, 'docker')),
      skipTlsVerify: meta.Endpoints.docker?.SkipTLSVerify ?? false,
      current: meta.Name === current,
    });
  }
  return out;
}
