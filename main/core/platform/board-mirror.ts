import type { MirrorState, TaskIssue } from '../../../shared/contract/tracker';
import type { BoardComment } from './store/board';
import type { Task } from './store/tasks';

/**
 * Where the board is mirrored (the tracker, main/core/tracker): told of each stored comment and status change
 * inside the transaction that stores it, so what it records (its outbox) commits with the change or not at all.
 */
export interface BoardMirror {
  commentStored(c: BoardComment): void;
  statusChanged(taskId: string, status: Task['status']): void;
  /** After the storing transaction committed. */
  committed(): void;
  /** For the card: the task's issue and each comment's way there. */
  issueOf(taskId: string): TaskIssue | null;
  commentStates(taskId: string): Map<string, MirrorState>;
}

/** The one mirror slot the board's stores read; empty until the tracker module fills it. */
export class BoardMirrorSlot {
  current: BoardMirror | null = null;
}
