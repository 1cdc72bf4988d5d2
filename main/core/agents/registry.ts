import { VaultSecretKind, type AgentCredentialInfo } from '../../../shared/contract';
import { NexusError } from '../../../shared/errors';
import { BASE_WORKER_PATH } from '../docker';
import { claudeDriver } from './claude';
import { codexDriver } from './codex';
import { copilotDriver } from './copilot';
import { geminiDriver } from './gemini';
import { opencodeDriver } from './opencode';
import { qwenDriver } from './qwen';
import type { AcpPort, AgentDriver, AgentDriverDeps, AgentKindConfig } from './driver';
import type { AgentSecretKind } from './secret-kind';

/** A kind as the registry holds it: its driver's factory, with what is known of it before one is built. */
export type AgentDriverFactory = ((deps: AgentDriverDeps) => AgentDriver) & {
  /** Its CLI's own sign-in files (regex sources). */
  cliCredentialFiles: readonly string[];
  /** The vault secret kinds that sign it in, with their labels. */
  secretKinds: readonly AgentSecretKind[];
};

/** Agent kinds by id, in order (the first is the default kind). */
export type AgentRegistry = Readonly<Record<string, AgentDriverFactory>>;

/** Every agent kind Nexus runs, one line each; the first is the kind a session gets when nothing names one. */
const DRIVERS = {
  claude: claudeDriver,
  codex: codexDriver,
  gemini: geminiDriver,
  opencode: opencodeDriver,
  qwen: qwenDriver,
  copilot: copilotDriver,
} as const satisfies AgentRegistry;

/** Every kind's own sign-in files, as regex sources (the approval rules always ask before reading them). */
export const AGENT_CLI_CREDENTIAL_FILES: readonly string[] = Object.values(DRIVERS).flatMap(
  (d) => d.cliCredentialFiles,
);

/** The kinds, in the registry's order. */
export const AGENT_KINDS: readonly string[] = Object.keys(DRIVERS);

/**
 * The agent credential kinds a registry's kinds declare, each with its label and the agent kinds it signs in, in the
 * registry's order. Throws when two kinds label one secret kind differently or a kind claims a vault kind (github…).
 */
export function credentialKindsOf(registry: AgentRegistry): AgentCredentialInfo[] {
  const byKind = new Map<string, AgentCredentialInfo>();
  for (const [agent, make] of Object.entries(registry))
    for (const { kind, label } of make.secretKinds) {
      if (VaultSecretKind.safeParse(kind).success)
        throw new Error(`Agent kind ${agent} declares "${kind}", one of the vault's own secret kinds.`);
      const seen = byKind.get(kind);
      if (!seen) byKind.set(kind, { kind, label, agents: [agent] });
      else if (seen.label !== label)
        throw new Error(`Agent kinds ${seen.agents.join(', ')} and ${agent} label secret kind "${kind}" differently.`);
      else seen.agents.push(agent);
    }
  return [...byKind.values()];
}

/** The shipped registry's credential kinds: what the vault takes beside its own when core passes it no others. */
export const AGENT_CREDENTIALS: readonly AgentCredentialInfo[] = credentialKindsOf(DRIVERS);

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
  /** Every credential kind the kinds declare (label, the kinds it signs in): what a secret's kind may be. */
  readonly credentials: readonly AgentCredentialInfo[];
  private readonly byKind: ReadonlyMap<string, AgentDriver>;

  /** Core's ACP client, bound once sessions exist (bindAcp); the ACP kinds' drivers reach it through `acp`. */
  private acpClient: AcpPort | null = null;

  /** `registry`: the kinds to build (default: the shipped registry above; a test may hand its own). */
  constructor(
    deps: Omit<AgentDriverDeps, 'config' | 'acp'> & {
      kinds: Readonly<Record<string, AgentKindConfig>>;
      registry?: AgentRegistry;
    },
  ) {
    const registry = deps.registry ?? DRIVERS;
    const acp: AcpPort = {
      deliver: (sessionId, text) => {
        if (!this.acpClient)
          throw new NexusError('unavailable', 'This Nexus runs no ACP client (no platform service).');
        return this.acpClient.deliver(sessionId, text);
      },
    };
    this.all = Object.entries(registry).map(([kind, make]) => make({ ...deps, acp, config: deps.kinds[kind] ?? {} }));
    this.credentials = credentialKindsOf(registry);
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
