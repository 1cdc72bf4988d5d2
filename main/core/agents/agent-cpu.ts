import { NexusError } from '../../../shared/errors';

/** The CPU a worker's agent binaries are built for (the engine's architecture, see cpuOf below). */
export type AgentCpu = 'x64' | 'arm64';

/** The Docker engine's architecture (`docker info` .Architecture) as npm's cpu name. */
export function cpuOf(engineArchitecture: string): AgentCpu {
  if (/^(x86_64|amd64|x64)$/i.test(engineArchitecture)) return 'x64';
  if (/^(aarch64|arm64)$/i.test(engineArchitecture)) return 'arm64';
  throw new NexusError(
    'unavailable',
    `The Docker engine runs on ${engineArchitecture}; the agent CLI is available for x86_64 and arm64 only.`,
  );
}
