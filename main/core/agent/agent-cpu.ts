/** The CPU a worker's agent binaries are built for (the engine's architecture, see agent-cli.ts cpuOf). */
export type AgentCpu = 'x64' | 'arm64';
