import { join } from 'node:path';
import type { CoreConfig } from '../config';
import type { CoreModule } from '../core-module';
import {
  platformHandlers,
  platformRecords,
  PlatformService,
  ReviewQueue,
  openToolsDb,
  reviewHandlers,
} from '../platform';
import { TokenService, tokenHandlers } from '../tokens';
import type { VaultService } from '../vault';
import type { WorkspaceRuntime } from '../workspaces';
import type { Foundations } from './foundations';
import { nameLookup } from './names';

/**
 * Platform tools over NATS (their server starts with the workers' host address: compose/worker-host.ts), the review
 * queue of memories and skills, agent records and the board, and MCP tokens.
 */
export function buildPlatform(
  d: Pick<Foundations, 'db' | 'redactor' | 'log' | 'events' | 'status' | 'audit'> & {
    config: CoreConfig;
    dataDir: string;
    vault: VaultService;
    runtime: WorkspaceRuntime;
  },
) {
  const { config, events, log, audit } = d;
  const toolsDb = openToolsDb(join(d.dataDir, 'nexus.db'));
  const names = nameLookup(toolsDb);
  const review = new ReviewQueue(toolsDb, events, audit, names);
  const platform = new PlatformService({
    db: toolsDb,
    config,
    dataDir: d.dataDir,
    status: d.status,
    redactor: d.redactor,
    log,
    audit,
    review,
  });
  const { records, board, react } = platformRecords(platform, toolsDb, events, names);
  const tokens = new TokenService(d.db, { vault: d.vault, events, log: log.child({ component: 'tokens' }) });
  const modules: CoreModule[] = [
    {
      name: 'platform',
      handlers: platformHandlers(platform, { records, board, workspaceId: (ref) => d.runtime.info(ref).id }),
      react,
      dispose: async () => {
        await platform.dispose();
        await toolsDb.close();
      },
    },
    { name: 'review queue', handlers: reviewHandlers(review) },
    { name: 'tokens', handlers: tokenHandlers(tokens) },
  ];
  return { toolsDb, review, platform, tokens, names, modules };
}
