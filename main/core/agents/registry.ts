import { NexusError } from '../../../shared/errors';
import { BASE_WORKER_PATH } from '../docker';
import { claudeDriver } from './claude';
import { codexDriver } from './codex';
import { copilotDriver } from './copilot';
import { geminiDriver } from './gemini';
import { opencodeDriver } from './opencode';
import { qwenDriver } from './qwen';
import type { AcpPort, AgentDriver, AgentDriverDeps, AgentKindConfig } from './driver';

/** Every agent kind Nexus runs, one line each; the first is the kind a session gets when nothing names one. */
const DRIVERS = {
  claude: claudeDriver,
  codex: codexDriver,
  gemini: geminiDriver,
  opencode: opencodeDriver,
  qwen: qwenDriver,
  copilot: copilotDriver,
} as const satisfies Record<
  string,
  ((deps: AgentDriverDeps) => AgentDriver) & { cliCredentialFiles: readonly string[] }
>;

/** Every kind's own sign-in files, as regex sources (the approval rules always ask before reading them). */
export const AGENT_CLI_CREDENTIAL_FILES: readonly string[] = Object.values(DRIVERS).flatMap(
  (d) => d.cliCredentialFiles,
);

/** The kinds, in the registry's order. */
export const AGENT_KINDS: readonly string[] = Object.keys(DRIVERS);

/**
 * A kind's settings from the environment: `NEXUS_<KIND>_CLI_DIR` and `NEXUS_<KIND>_BASE_URL`; the default kind also
 * reads `NEXUS_AGENT_CLI_DIR` / `NEXUS_AGENT_BASE_URL` (the names from before there were kinds).
 */
export function agentKindsFromEnv(env: NodeJS.ProcessEnv): Record<string, AgentKindConfig> {
  const out: Record<string, AgentKindConfig> = {};
  AGENT_KINDS.forEach((kind, i) => {
    const upper = kind.toUpperCase().replace(/-/g, '_');
    const cliDir = env[`NEXUS_${upper}_CLI_DIR`] ?? (i === 0 ? env.NEXUS_AGENT_CLI_DIR : undefined);
    const baseUrl = env[`NEXUS_${upper}_BASE_URL`] ?? (i === 0 ? env.NEXUS_AGENT_BASE_URL : undefined);
    if (cliDir || baseUrl) out[kind] = { ...(cliDir ? { cliDir } : {}), ...(baseUrl ? { baseUrl } : {}) };
  });
  return out;
}

/** The agent kinds of this core, each driver built once with its settings. */
export class AgentDrivers {
  readonly all: readonly AgentDriver[];
  private readonly byKind: ReadonlyMap<string, AgentDriver>;

  /** Core's ACP client, bound once sessions exist (bindAcp); the ACP kinds' drivers reach it through `acp`. */
  private acpClient: AcpPort | null = null;

  constructor(deps: Omit<AgentDriverDeps, 'config' | 'acp'> & { kinds: Readonly<Record<string, AgentKindConfig>> }) {
    const acp: AcpPort = {
      deliver: (sessionId, text) => {
        if (!this.acpClient)
          throw new NexusError('unavailable', 'This Nexus runs no ACP client (no platform service).');
        return this.acpClient.deliver(sessionId, text);
      },
    };
    this.all = Object.entries(DRIVERS).map(([kind, make]) => make({ ...deps, acp, config: deps.kinds[kind] ?? {} }));
    this.byKind = new Map(this.all.map((d) => [d.kind, d]));
  }

  bindAcp(client: AcpPort): void {
    this.acpClient = client;
  }

  /** The kind a session or workspace gets when nothing names one. */
  get default(): AgentDriver {
    return this.all[0] as AgentDriver;
  }

  /** The driver of `kind`; a kind this Nexus does not run is a bad request that names the ones it does. */
  get(kind: string): AgentDriver {
    const driver = this.byKind.get(kind);
    if (!driver)
      throw new NexusError(
        'bad_request',
        `No agent kind "${kind.slice(0, 40)}" in this Nexus; it runs ${this.all.map((d) => d.kind).join(', ')}.`,
      );
    return driver;
  }

  /** The worker's PATH: every kind's CLI mount first, so each command resolves to its pinned binary. */
  workerPath(): string {
    return [...this.all.flatMap((d) => d.cli.pathEntries), BASE_WORKER_PATH].join(':');
  }
}
