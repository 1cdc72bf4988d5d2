// The agents room's public face: the agent kinds (drivers and their registry), the settings and credentials of
// each kind, and what a session's launch is. What a kind does is behind AgentDriver; nothing outside
// agents/<kind>/ names a kind.
export { agentHandlers } from './agent-handlers';
export { ACP_BRIDGE_FILES, acpBridgePath, acpHandlers, AcpSessions, AcpStore, type AcpSessionInfo } from './acp';
export { AgentService } from './agent-service';
export { cpuOf, type AgentCpu } from './agent-cpu';
export { AgentConfig } from './config';
export type {
  AgentDriver,
  AgentSecretKind,
  DeliveryReport,
  DriverExec,
  DriverSession,
  ModelWire,
  SessionGateway,
} from './driver';
export { checkPrompt, launchScript, shellQuote, type LaunchCommand, type LaunchPlan } from './launch';
export { permissionModeFor, type PromptingMode } from './permission-mode';
export {
  AGENT_CLI_CREDENTIAL_FILES,
  AGENT_CREDENTIALS,
  AGENT_KINDS,
  agentKindsFromEnv,
  AgentDrivers,
  type AgentRegistry,
} from './registry';
export { startupFailureReason } from './startup-watchdog';
export { workspaceAgent, type AgentCliMount, type WorkspaceAgent } from './workspace-agent';
