import type { AgentCliInfo } from '../../../shared/contract';
import type { Handlers } from '../handlers';
import type { StatusBoard } from './status';

export function appHandlers(deps: {
  version: string;
  dataDir: string;
  startedAt: Date;
  status: StatusBoard;
  agentCli: () => AgentCliInfo;
  codexCli: () => AgentCliInfo;
}): Pick<Handlers, 'app.info'> {
  return {
    'app.info': () => ({
      version: deps.version,
      agentCli: deps.agentCli(),
      codexCli: deps.codexCli(),
      dataDir: deps.dataDir,
      startedAt: deps.startedAt.toISOString(),
      uptimeSeconds: Math.floor((Date.now() - deps.startedAt.getTime()) / 1000),
      ...deps.status.get(),
    }),
  };
}
