import type { SecretKind } from '../../../../shared/contract';
import type { AgentSecretKind } from '../secret-kind';
import type { ModelWire } from '../model-wire';
import type { PinnedNpmCliSpec } from '../pinned-npm-cli';

/**
 * One agent kind that speaks the Agent Client Protocol, as a small declaration: the acp family (acp-driver.ts) makes
 * the whole driver from it. A new ACP kind is a folder `agents/<kind>/` with its pin (cli.ts) and this declaration,
 * plus one line in the registry (docs/agents.md, "ACP kinds").
 */
export interface AcpKindDeclaration {
  kind: string;
  label: string;
  /** The name it gives itself ("Gemini"). */
  speaker: string;
  cli: AcpCliDeclaration;
  /** How it reaches its model: the wire, the provider's API base, and the real credential as headers. */
  model: {
    wire: ModelWire;
    upstream: string;
    secretKinds: readonly AgentSecretKind[];
    /** "a Gemini API key": what to add, in an error. */
    describe: string;
    headers(secretKind: SecretKind, value: string): Record<string, string>;
  };
  /**
   * The agent's environment pointed at the session's gateway URL (`gatewayUrl`); the session's gateway credential
   * is read from `keyVar`'s file at launch into the variable `keyVar` names. `model`: the model to ask for when a
   * custom upstream (the tests' stand-in) serves any.
   */
  env(input: { gatewayUrl: string; model: string | null }): Record<string, string>;
  /** The variable the agent reads its API key from (set from the session's gateway credential file). */
  keyVar: string;
  /** The session mode that makes it ask before a shell call (`session/set_mode`); null: its default mode asks. */
  askMode: string | null;
  /** MCP transports it takes from session/new (stdio is the protocol's must). */
  mcpTransports: readonly ('stdio' | 'http')[];
  /** Where it keeps its sessions, relative to the agent user's home (what session/load reads). */
  sessionStore: string;
  /**
   * Settings merged into a JSON file under the agent user's home at each container start (the operator's own keys
   * kept), for what only a settings file turns off.
   */
  userSettings?: { file: string; merge: Record<string, unknown> };
  /** Files where it keeps a sign-in of its own (regex sources; the approval rules ask before reading them). */
  credentialFiles: readonly string[];
}

/** The pinned install (its cli.ts): the npm package, where it is mounted in every worker, the agent's argv there. */
export interface AcpCliDeclaration {
  spec: PinnedNpmCliSpec;
  mountTarget: string;
  argv: readonly string[];
}
