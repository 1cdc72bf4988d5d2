import { z } from 'zod';
import { AgentCliInfo, AgentKind } from './agent-kind';
import { operation } from './define';
import { VaultMode } from './vault';

const component = <S extends readonly [string, ...string[]]>(states: S) =>
  z.object({ state: z.enum(states), reason: z.string() });

/** `mode`: how the vault opens (keychain, passphrase, key file), so a weaker mode is never silent. */
export const VaultState = component(['uninitialized', 'locked', 'unlocked']).extend({ mode: VaultMode.nullable() });
export const DockerState = component(['available', 'unavailable']);
export const NatsState = component(['starting', 'running', 'external', 'unavailable', 'stopped']);

export const AppStatus = z.object({ vault: VaultState, docker: DockerState, nats: NatsState });
export type AppStatus = z.infer<typeof AppStatus>;

export const AppInfo = AppStatus.extend({
  version: z.string(),
  /** Each agent kind's pinned CLI, in the registry's order (the first is the default kind). */
  agentClis: z.array(z.object({ kind: AgentKind, label: z.string(), cli: AgentCliInfo })),
  dataDir: z.string(),
  startedAt: z.string(),
  uptimeSeconds: z.number().int().nonnegative(),
});
export type AppInfo = z.infer<typeof AppInfo>;

export const Progress = z.object({
  /** Stable id of the long operation, e.g. `workspace:<id>:create`. */
  id: z.string(),
  /** The workspace the operation is about, when it is about one (read this, not the `id`). */
  workspaceId: z.string().optional(),
  /** The session the operation is about, when it is about one. */
  sessionId: z.string().optional(),
  label: z.string(),
  step: z.string(),
  /** 0..1 when known. */
  fraction: z.number().min(0).max(1).optional(),
  done: z.boolean().default(false),
  error: z.string().optional(),
});
export type Progress = z.infer<typeof Progress>;

export const appOperations = {
  'app.info': operation({
    summary: 'Version, data directory and the state of the vault, Docker and NATS.',
    access: 'read',
    delegated: 'fleet-wide',
    phone: false,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: AppInfo,
  }),
};

export const appEvents = {
  /** The vault, Docker or NATS changed state. */
  'app.status': AppStatus,
  /** A step of a long operation (image build, clone, ...). */
  progress: Progress,
};
