import type { AppInfo } from '../../../shared/contract';
import type { Handlers } from '../handlers';
import type { StatusBoard } from './status';

export function appHandlers(deps: {
  version: string;
  dataDir: string;
  startedAt: Date;
  status: StatusBoard;
  /** Each agent kind's pinned CLI, in the registry's order. */
  agentClis: () => AppInfo['agentClis'];
}): Pick<Handlers, 'app.info'> {
  const startedAt = deps.startedAt.toISOString();
  const startedMs = deps.startedAt.getTime();
  return {
    'app.info': () => ({
      version: deps.version,
      agentClis: deps.agentClis(),
      dataDir: deps.dataDir,
      startedAt,
      uptimeSeconds: Math.floor((Date.now() - startedMs) / 1000),
      ...deps.status.get(),
    }),
  };
}
