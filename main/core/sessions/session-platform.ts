import type { SessionsConfig } from './config';
import type { Disposable } from '../disposable';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import { workspaceAgentName, type PlatformService } from '../platform';
import type { Redactor } from '../redact';
import type { Db } from '../store';
import type { VaultService } from '../vault';
import { autoStartDelegated } from './auto-start';
import { externalMcpEntries, type ExternalMcpOf } from './launch/external-mcp';
import type { SessionService } from './session-service';

/** What sessions take from a workspace's agent record beyond their run: its external MCP servers. */
export function externalMcpFor(d: {
  platform: Pick<PlatformService, 'agents'>;
  vault: Pick<VaultService, 'secrets' | 'resolveSecret'>;
  redactor: Redactor;
  config: { sessions: Pick<SessionsConfig, 'nexusMcpCommand'> };
  log: Logger;
}): ExternalMcpOf {
  return externalMcpEntries({
    servers: (id) => d.platform.agents.byName(workspaceAgentName(id))?.mcpServers ?? [],
    resolveSecret: async (ref) => {
      const s = d.vault.secrets.list().find((x) => x.id === ref || x.name === ref);
      return (await d.vault.resolveSecret(s?.id ?? ref)).value;
    },
    addSecret: (v) => d.redactor.addSecret(v),
    nexusMcpCommand: d.config.sessions.nexusMcpCommand,
    log: d.log.child({ feature: 'external-mcp' }),
  });
}

/** Auto-start of delegated tasks, for workspaces whose agent record opts in. */
export function autoStartFor(d: {
  db: Db;
  platform: Pick<PlatformService, 'agents' | 'feed' | 'tasks'>;
  events: EventBus;
  sessions: SessionService;
  log: Logger;
}): Disposable {
  return autoStartDelegated({
    db: d.db,
    feed: d.platform.feed,
    events: d.events,
    agentOf: (id) => d.platform.agents.byName(workspaceAgentName(id)),
    autoStartWorkspaces: () => d.platform.agents.list().flatMap((a) => (a.autoStart && a.project ? [a.project] : [])),
    tasks: d.platform.tasks,
    sessions: d.sessions,
    log: d.log.child({ feature: 'auto-start' }),
  });
}
