import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentDrivers, AgentService } from './agents';
import type { StatusBoard } from './app';
import type { AttentionService } from './attention';
import type { AuditLog } from './audit';
import type { CoreConfig } from './config';
import type { Dispatcher } from './dispatch';
import type { EngineService } from './engines';
import type { EventBus } from './events';
import type { Logger } from './log';
import type { ConnectService, DelegationService, McpGateOptions } from './mcp';
import type { ConnectorService } from './connectors';
import type { PhoneService } from './phone';
import type { PlatformService, ReviewQueue } from './platform';
import type { PreviewFront } from './previews';
import type { CorePorts } from './ports';
import type { Redactor } from './redact';
import type { PermissionRequests, RulesService } from './permissions';
import type { SessionService } from './sessions';
import type { SessionTerminals } from './terminal';
import type { TokenService } from './tokens';
import type { VaultService } from './vault';
import type { WorkspaceService } from './workspaces';

/**
 * What the shells (main/host, main/electron, main/serve.ts, main/cli) use of core: the one way in
 * (`dispatcher`), what they serve or show, and the MCP gate. No database, no service behind the dispatcher.
 */
export interface CoreApi {
  config: CoreConfig;
  ports: CorePorts;
  log: Logger;
  events: EventBus;
  status: StatusBoard;
  dispatcher: Dispatcher;
  /** Live terminals of sessions (the host's /api/terminal WebSocket and Electron's IPC adapt it). */
  terminals: SessionTerminals;
  /** The fleet roll-up the tray shows. */
  attention: AttentionService;
  /** Sessions as MCP clients: where the worker listener binds, and telling core where it listens. */
  delegation: Pick<DelegationService, 'overBridge' | 'bridge' | 'listening' | 'relayHosts'>;
  /** The HTTP gate in front of the MCP server, for a listener that has checked Host and Origin. */
  mcpGate(opts?: McpGateOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** Remote connectors: the public origin, Nexus's OAuth authorization server, its grants (docs/remote.md). */
  remote: ConnectorService;
  /** The operator's phone on the public origin: passkeys, sessions (docs/remote.md, "From the phone"). */
  phone: PhoneService;
  /** Sessions' previews: a request whose Host is a preview origin goes here and nowhere else (docs/previews.md). */
  previews: PreviewFront;
  /** Closes every process, socket, subscription and file core opened. */
  dispose(): Promise<void>;
}

/**
 * Core as the composition root built it: the shells' `CoreApi` and every service, for tests that
 * drive one directly. A test that needs the database opens it with test/helpers/core.ts.
 */
export interface Core extends CoreApi {
  redactor: Redactor;
  audit: AuditLog;
  workspaces: WorkspaceService;
  sessions: SessionService;
  /** Permission requests from the agents' PermissionRequest hooks, held for the operator. */
  permissions: PermissionRequests;
  /** The approval rules (docs/permissions.md). */
  rules: RulesService;
  /** The agent kinds (agents/registry.ts): each kind's pinned CLI, sign-in, launch, hooks and messages. */
  drivers: AgentDrivers;
  /** Settings → Agent: each kind's default credential and model endpoint, the mode sessions start in. */
  agent: AgentService;
  /** Vault lifecycle, principals and secrets; `vault.resolveSecret(id)` is the Docker code's way to a token. */
  vault: VaultService;
  /** Platform tools over NATS: agents, runs (per-run NATS users), hook events. */
  platform: PlatformService;
  review: ReviewQueue;
  /** MCP tokens: `tokens.authenticate(secret)` is how the /api/mcp gate knows its caller. */
  tokens: TokenService;
  /** The MCP endpoint URL (from the host port), Claude Desktop's config entry and the Claude Code line. */
  connect: ConnectService;
  /** Sessions as MCP clients: each workspace's delegated credential and the worker listener's URL. */
  delegation: DelegationService;
  /** Docker engines workspaces live on: the local one and remote ones (SSH, TLS). */
  engines: EngineService;
}
