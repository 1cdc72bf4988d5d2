import type { AgentCapabilities, AgentCliInfo, MessageDelivery, SecretKind } from '../../../shared/contract';
import type { AgentCpu } from './agent-cpu';
import type { LaunchPlan } from './launch';
import type { PromptingMode } from './permission-mode';
import type { AcpKindDeclaration } from './acp/declaration';
import type { ModelWire } from './model-wire';
import type { AgentSecretKind } from './secret-kind';

/**
 * One agent kind (Claude Code, Codex, …) as Nexus runs it: everything docs/agents.md's side-by-side table lists for
 * a kind, behind one interface. A kind is a folder `agents/<kind>/` holding its driver, plus one line in
 * `agents/registry.ts`; nothing outside that folder names it (`agents/kind-names.test.ts` greps the tree).
 */
export interface AgentDriver {
  /** The kind's id: the session's `agent` column, the contract's `AgentKind`. */
  readonly kind: string;
  /** What people call it ("Claude Code"). */
  readonly label: string;
  /** The name it gives itself in its own notifications ("Claude needs your permission…"). */
  readonly speaker: string;
  readonly capabilities: AgentCapabilities;
  /** The model endpoint its sessions use (its `baseUrl` setting); null: the provider's own API. */
  readonly baseUrl: string | null;
  /** Pin and host install: the CLI mounted read-only into every worker. */
  readonly cli: AgentCliPort;
  /** Sign-in: which vault secrets it takes (they stay in core: the model gateway signs its requests). */
  readonly credential: AgentCredentialSpec;
  /** How its model traffic goes through Nexus's gateway: the wire it speaks and where that goes upstream. */
  readonly gateway: AgentGatewaySpec;
  /** Its sessions call platform tools through the container's resident nexus-mcp over HTTP (else a stdio one each). */
  readonly usesResidentMcp: boolean;
  /** Container-wide first-run state (user-level settings with Nexus's hooks), installed with the worker tools. */
  containerSetup?(input: AgentContainerSetupInput): { script: string; payload: string };
  /** Whether its sessions need a credential in Nexus to start (false: a custom command that brings its own). */
  readonly needsCredential: boolean;
  /** Throws a typed error (unavailable) when a session of this kind cannot start in the container (no CLI). */
  ready(exec: DriverExec, workspace: string): Promise<void>;
  /** The session's launch and relaunch, checked once (throws bad_request for a prompt it cannot carry). */
  plan(input: AgentLaunchInput): LaunchPlan;
  /**
   * The session's MCP servers (nexus, nexus-delegated, external) as the file this kind reads, written 0600 into its
   * state dir; null when the kind needs no file (no servers).
   */
  mcpConfig(input: AgentMcpInput): { file: string; content: string } | null;
  /** How a message reaches the agent; absent: Nexus's inbox socket (receipts from the agent). */
  deliver?(exec: DriverExec, session: DriverSession, text: string): Promise<DeliveryReport>;
  /** The conversation id a hook reports, for kinds whose CLI chooses it (null: not in this event). */
  conversationFrom?(hookEventName: string, event: { session_id?: string | undefined }): string | null;
  /** A kind that speaks ACP: its declaration (core is then the client of its sessions, agents/acp). */
  readonly acp?: AcpKindDeclaration;
  /** What a relaunch after a restart looks like: waiting for its SessionStart, or already at its prompt. */
  afterRelaunch(session: DriverSession): { state: 'starting' } | { state: 'idle'; message: string };
}

/** A command in the session's container (the caller binds the container). */
export type DriverExec = (
  cmd: string[],
  opts?: { env?: Record<string, string>; timeoutMs?: number },
) => Promise<{ exitCode: number; stdout: string; stderr: string }>;

/** The session as a driver sees it. */
export interface DriverSession {
  id: string;
  name: string;
  /** The agent's own conversation id when the CLI chose and reported it (null: not yet, or the kind chooses none). */
  conversationId: string | null;
}

export interface DeliveryReport {
  status: MessageDelivery;
  note: string;
}

export interface AgentCliPort {
  /** The pinned package and what is in use (Settings → About, get_nexus_info). */
  info(): AgentCliInfo;
  /**
   * The host directory to mount for `cpu`, or null when this kind is not installed (its sessions are then refused
   * at create with what to do); throws when an install was expected and failed.
   */
  locate(cpu: AgentCpu, progress: (step: string, fraction?: number) => void): Promise<string | null>;
  /** Where the directory is mounted in every worker. */
  readonly mountTarget: string;
  /** Directories under the mount put on the worker's PATH. */
  readonly pathEntries: readonly string[];
}

export type { ModelWire } from './model-wire';
export type { AgentSecretKind } from './secret-kind';

export interface AgentGatewaySpec {
  wire: ModelWire;
  /** The provider's API base (its `baseUrl` setting overrides it; tests: the stand-in). */
  upstream: string;
  /**
   * The real credential, a vault secret of one of the kind's secret kinds, as the provider's request headers (they
   * replace the agent's own of the same name; `incoming` are the agent's, for headers a kind merges).
   */
  headers(
    secretKind: SecretKind,
    value: string,
    incoming: Record<string, string | string[] | undefined>,
  ): Record<string, string>;
}

/** Where a session's model requests go: the gateway's URL for its kind, and the file holding its credential. */
export interface SessionGateway {
  url: string;
  keyFile: string;
}

export interface AgentCredentialSpec {
  /** The vault secret kinds that sign it in (the secret form and Settings → Agent offer these). */
  readonly secretKinds: readonly AgentSecretKind[];
  /** "an Anthropic API key or a Claude OAuth token": what to add, in an error. */
  readonly describe: string;
  /** The tmpfs file (under /run/nexus) a secret of `kind` is written to, 0600, at workspace create and start. */
  fileFor(kind: SecretKind): string;
  /** Every file this kind's credential may be in (the others are removed when one is written). */
  readonly files: readonly string[];
}

export interface AgentLaunchInput {
  workspace: string;
  workspaceId: string;
  name: string;
  sessionId: string;
  /** The conversation id Nexus chose for the session (kinds that take one: `--session-id`). */
  agentSessionId: string;
  /** The id the agent reported (kinds that choose their own), for resume. */
  conversationId: string | null;
  initialMessage?: string | undefined;
  resume: boolean;
  /** The workspace runs its agents in bypassPermissions. */
  bypass: boolean;
  /** The session's way to its model (null: no gateway listens; the agent cannot reach a model). */
  gateway: SessionGateway | null;
  /** The hook handler for one event, into the container's relay (kinds whose hooks are per session). */
  hookHandler(event: string, timeoutSeconds: number): Record<string, unknown>;
  /** How long core holds a permission request for the operator. */
  permissionWaitMs: number;
  /** Nexus's tools in the container and the workspace's NATS file (a kind whose bridge talks to core reads both). */
  worker: { toolsDir: string; natsFile: string };
}

export interface AgentContainerSetupInput {
  /** The workspace's clone in the container (trusting it covers every worktree). */
  repoDir: string;
  bypass: boolean;
  /** A hook entry into the container's relay: over HTTP where the CLI posts, else the command hook. */
  hook(event: string, timeoutSeconds: number, transport: 'http' | 'command'): Record<string, unknown>;
  /** Every hook entry of Nexus's carries this in its command or URL (a re-seed replaces exactly those). */
  marker: string;
  /** The agent's own timeout for a permission hook (outlasts Nexus's wait). */
  permissionTimeoutSeconds: number;
}

export interface AgentMcpInput {
  /** The session's state dir (run files are written there, 0600). */
  stateDir: string;
  worktree: string;
  /** Servers in Claude's `mcpServers` shape (the common form): `nexus`, `nexus-delegated`, the agent's external ones. */
  servers: Record<string, unknown>;
  /** Servers whose tool calls need no gate (Core authorises platform tools itself). */
  trusted: readonly string[];
  /** The session's way to its model (kinds that configure it in this file). */
  gateway: SessionGateway | null;
}

/** What the ACP kinds' drivers need of core's ACP client (agents/acp/acp-sessions.ts), bound once sessions exist. */
export interface AcpPort {
  deliver(sessionId: string, text: string): DeliveryReport;
}

/** What the registry hands each driver when core builds it. */
export interface AgentDriverDeps {
  /** Nexus's data directory (installs Nexus makes go under it). */
  dataDir: string;
  /** This kind's settings (`agent.kinds.<kind>` in the config; env `NEXUS_AGENT_<KIND>_*`). */
  config: AgentKindConfig;
  /** The agent command and arguments the operator configured (tests: the fixture CLI). */
  launch: AgentLaunchConfig;
  /** Core's ACP client, for the kinds that speak ACP (absent: no platform service, their messages are refused). */
  acp?: AcpPort | undefined;
}

export interface AgentKindConfig {
  /** An existing install of the pinned CLI. */
  cliDir?: string | undefined;
  /** The model endpoint every session of this kind uses (tests: the model stand-in). */
  baseUrl?: string | undefined;
}

/** The launch settings of SessionsConfig a driver reads. */
export interface AgentLaunchConfig {
  /** The default kind's command in place of its CLI (the tests' fixture); unset: the kind's own. */
  agentCommand?: readonly string[] | undefined;
  agentArgs: readonly string[];
  permissionMode?: PromptingMode | undefined;
  mcpConfig?: string | undefined;
  remoteControl: boolean;
}
