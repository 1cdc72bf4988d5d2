import type { AgentDrivers } from '../agents';
import { appHandlers } from '../app';
import { attentionHandlers, fleetAttention } from '../attention';
import type { CoreConfig } from '../config';
import { activityHandler, ConnectorService, connectorHandlers } from '../connectors';
import type { CoreModule } from '../core-module';
import { ConnectService, connectHandlers } from '../mcp';
import { PhoneService, phoneHandlers } from '../phone';
import type { ReviewQueue } from '../platform';
import type { ConflictRadar } from '../review';
import type { CorePorts } from '../ports';
import type { SessionService } from '../sessions';
import type { TokenService } from '../tokens';
import type { CoreSecrets, VaultService } from '../vault';
import type { Workspaces } from '../workspaces';
import type { Foundations } from './foundations';

/**
 * What faces the operator: what needs them (attention, the tray), how MCP clients connect, Claude's OAuth connectors
 * on the public origin, the phone, and the app's own operations.
 */
export function buildOperator(
  d: Pick<Foundations, 'db' | 'redactor' | 'log' | 'events' | 'status' | 'audit'> & {
    config: CoreConfig;
    dataDir: string;
    ports: CorePorts;
    drivers: AgentDrivers;
    vault: VaultService;
    coreSecrets: CoreSecrets;
    tokens: TokenService;
    workspaces: Workspaces;
    sessions: SessionService;
    review: ReviewQueue;
    radar: ConflictRadar;
  },
) {
  const { config, events, log, audit, vault } = d;
  const startedAt = new Date();
  const attention = fleetAttention({
    workspaces: d.workspaces.service,
    sessions: d.sessions,
    review: d.review,
    radar: d.radar,
    events,
    notifier: d.ports.notifier,
    redactor: d.redactor,
    log,
  });
  const connect = new ConnectService({
    tokens: d.tokens,
    secrets: d.coreSecrets,
    host: d.ports.host,
    log,
    dataDir: d.dataDir,
    launcher: config.mcp.stdioLauncher,
    claudeDesktopConfig: config.mcp.claudeDesktopConfig,
  });
  const remote = new ConnectorService(d.db, { log: log.child({ component: 'remote' }), audit });
  const phone = new PhoneService(d.db, {
    remote,
    audit,
    log: log.child({ component: 'phone' }),
    dek: () => (vault.status().state === 'unlocked' ? vault.requireDek() : null),
  });
  const modules: CoreModule[] = [
    {
      name: 'attention',
      handlers: attentionHandlers(attention),
      react: () => [attention.follow()],
      dispose: () => attention.dispose(),
    },
    { name: 'connect', handlers: connectHandlers(connect) },
    { name: 'connectors', handlers: connectorHandlers(remote) },
    { name: 'activity', handlers: activityHandler({ db: d.db, audit, tokens: d.tokens, remote }) },
    { name: 'phone', handlers: phoneHandlers(phone), react: () => [phone.follow(events)] },
    {
      name: 'app',
      handlers: appHandlers({
        version: config.version,
        dataDir: d.dataDir,
        startedAt,
        status: d.status,
        agentClis: () => d.drivers.all.map((k) => ({ kind: k.kind, label: k.label, cli: k.cli.info() })),
      }),
    },
  ];
  return { attention, connect, remote, phone, modules };
}
