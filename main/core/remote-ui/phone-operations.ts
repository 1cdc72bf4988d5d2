import type { OpName } from '../../../shared/contract';

/**
 * The only operations a phone signed in on the public origin may call (POST /api/rpc/<op> on the
 * public Host); any other operation name is no route there (404), decided on the matched operation
 * name before anything is read. What a phone is for: see what needs you, decide permission
 * requests, follow and message sessions, move tasks on the board, and answer the review queue.
 * Vault set-up and unlock, secrets, tokens, engines (agent credentials), workspaces' lifecycle,
 * pushing, connectors, the phone settings themselves and the activity log stay on the local UI.
 */
export const PHONE_OPERATIONS: ReadonlySet<OpName> = new Set<OpName>([
  'attention.get',
  'attention.summary',
  'attention.sessions',
  'permissions.list',
  'permissions.decide',
  'sessions.list',
  'sessions.get',
  'sessions.pane',
  'sessions.changes',
  'sessions.diff',
  'sessions.sendMessage',
  'workspaces.list',
  'board.list',
  'tasks.setStatus',
  'review.list',
  'review.counts',
  'review.approveMemory',
  'review.rejectMemory',
  'review.approveSkill',
  'review.rejectSkill',
]);

export const isPhoneOperation = (op: string): op is OpName => PHONE_OPERATIONS.has(op as OpName);
