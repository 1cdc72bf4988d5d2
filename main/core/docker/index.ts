// The Docker room's public face: what workspaces, sessions, engines and the rest may use of an engine.
// Below them: nothing here imports workspaces/, sessions/ or engines/ (what they add is passed in).
export {
  BASE_WORKER_PATH,
  credentialPayload,
  WORKSPACE_DIR,
  workspaceContainerSpec,
  type AgentCliVolume,
  type ContainerLimits,
} from './container-spec';
export { WorkspaceContainers, type ContainerSummary } from './containers';
export { DockerWatch } from './docker-watch';
export { createDockerClient, dockerFailure, dockerUnavailable, probeDocker, withTimeout } from './engine';
export type { EngineLost } from './engine-lost';
export {
  LOCAL_ENGINE,
  localEngineOnly,
  type AgentCliSource,
  type EngineProgress,
  type RemoteWatchDeps,
  type WorkspaceEngines,
} from './engine-port';
export { attachIn, execIn, type AttachOptions, type ExecOptions, type ExecResult, type TtyProcess } from './exec';
export { isOwnedBy, LABEL, ownerIdFor } from './labels';
export {
  confinedNetworkOf,
  ensureConfinedNetwork,
  isLoopbackNetwork,
  learnWorkerHost,
  workerBridge,
  workerHostAddress,
} from './network';
export { packTar, streamTar, type TarFile } from './tar';
export {
  imageExists,
  statusOf,
  WORKER_NODE,
  workerBuildContext,
  WorkerImageBuilder,
  type WorkerContext,
} from './worker-image';
export { DockerConfig } from './config';
