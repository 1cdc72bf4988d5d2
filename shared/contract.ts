/**
 * The one contract: every operation (zod input, zod output, the credential class it needs) and
 * every push event, defined once. Core implements a handler per operation; Electron IPC, the HTTP
 * host and the MCP server only adapt it. Features keep their part in shared/contract/<feature>.ts.
 */
import type { z } from 'zod';
import { appEvents, appOperations } from './contract/app';
import { attentionEvents, attentionOperations } from './contract/attention';
import { sessionEvents, sessionOperations } from './contract/sessions';
import { workspaceEvents, workspaceOperations } from './contract/workspaces';
import { vaultEvents, vaultOperations } from './contract/vault';
import { platformEvents, platformOperations } from './contract/platform';
import { reviewEvents, reviewOperations } from './contract/review';
import { tokenEvents, tokenOperations } from './contract/tokens';
import { remoteOperations } from './contract/remote';
import { phoneOperations } from './contract/remote-ui';
import { activityOperations } from './contract/activity';
import { connectOperations } from './contract/connect';
import { agentEvents, agentOperations } from './contract/agent';
import { usageEvents, usageOperations } from './contract/usage';
import { permissionEvents, permissionOperations } from './contract/permissions';
import { ruleEvents, ruleOperations } from './contract/rules';
import { delegationOperations } from './contract/delegation';
import { engineEvents, engineOperations } from './contract/engines';
import { trackerOperations } from './contract/tracker';
import { checkpointEvents, checkpointOperations } from './contract/checkpoints';
import { transcriptEvents, transcriptOperations } from './contract/transcript';
import { radarEvents, radarOperations } from './contract/radar';
import { reviewCommentEvents, reviewCommentOperations } from './contract/review-comments';
import { attemptEvents, attemptOperations } from './contract/attempts';
import { sessionSetupEvents, sessionSetupOperations } from './contract/session-setup';
import { previewEvents, previewOperations } from './contract/previews';
import { egressEvents, egressOperations } from './contract/egress';

export * from './contract/define';
export * from './contract/app';
export * from './contract/workspaces';
export * from './contract/sessions';
export * from './contract/attention';
export * from './contract/vault';
export * from './contract/platform';
export * from './contract/review';
export * from './contract/tokens';
export * from './contract/connect';
export * from './contract/agent';
export * from './contract/agent-kind';
export * from './contract/usage';
export * from './contract/permissions';
export * from './contract/rules';
export * from './contract/delegation';
export * from './contract/remote';
export * from './contract/remote-ui';
export * from './contract/activity';
export * from './contract/engines';
export * from './contract/tracker';
export * from './contract/checkpoints';
export * from './contract/transcript';
export * from './contract/radar';
export * from './contract/review-comments';
export * from './contract/attempts';
export * from './contract/session-setup';
export * from './contract/previews';
export * from './contract/egress';

export const operations = {
  ...appOperations,
  ...workspaceOperations,
  ...sessionOperations,
  ...attentionOperations,
  ...vaultOperations,
  ...platformOperations,
  ...reviewOperations,
  ...tokenOperations,
  ...connectOperations,
  ...agentOperations,
  ...usageOperations,
  ...permissionOperations,
  ...ruleOperations,
  ...delegationOperations,
  ...remoteOperations,
  ...phoneOperations,
  ...activityOperations,
  ...engineOperations,
  ...trackerOperations,
  ...checkpointOperations,
  ...transcriptOperations,
  ...radarOperations,
  ...reviewCommentOperations,
  ...attemptOperations,
  ...sessionSetupOperations,
  ...previewOperations,
  ...egressOperations,
} as const;

export const events = {
  ...appEvents,
  ...workspaceEvents,
  ...sessionEvents,
  ...attentionEvents,
  ...vaultEvents,
  ...platformEvents,
  ...reviewEvents,
  ...tokenEvents,
  ...agentEvents,
  ...usageEvents,
  ...permissionEvents,
  ...ruleEvents,
  ...engineEvents,
  ...checkpointEvents,
  ...transcriptEvents,
  ...radarEvents,
  ...reviewCommentEvents,
  ...attemptEvents,
  ...sessionSetupEvents,
  ...previewEvents,
  ...egressEvents,
} as const;

export type Operations = typeof operations;
export type OpName = keyof Operations;
export type OpInput<K extends OpName> = z.input<Operations[K]['input']>;
export type OpParsedInput<K extends OpName> = z.output<Operations[K]['input']>;
export type OpOutput<K extends OpName> = z.output<Operations[K]['output']>;

export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<K extends EventName> = z.output<Events[K]>;
export interface EventMessage<K extends EventName = EventName> {
  name: K;
  payload: EventPayload<K>;
}

export const opNames = Object.keys(operations) as OpName[];
export const eventNames = Object.keys(events) as EventName[];
export const isOpName = (name: string): name is OpName => Object.hasOwn(operations, name);

/** The named API both transports expose to the renderer: `api['app.info'](input)`. */
export type NexusApi = {
  [K in OpName]: (input: OpInput<K>) => Promise<OpOutput<K>>;
} & {
  subscribe(listener: (event: EventMessage) => void): () => void;
};
