import type { MirrorState, TaskIssue } from '../../../shared/contract/tracker';
import type { z } from 'zod';
import type { Task } from '../../../shared/platform-tools';

/** A stored board comment, as the mirror is told of it (store/board.ts's row; not imported, so no cycle). */
export interface MirroredComment {
  id: string;
  taskId: string;
  runId: string | null;
  agentId: string | null;
  body: string;
  createdAt: string;
}

/**
 * Where the board is mirrored (the tracker, main/core/tracker): told of each stored comment and status change
 * inside the transaction that stores it, so what it records (its outbox) commits with the change or not at all.
 */
export interface BoardMirror {
  commentStored(c: MirroredComment): void;
  statusChanged(taskId: string, status: z.infer<typeof Task>['status']): void;
  /** After the storing transaction committed. */
  committed(): void;
  /**
   * An issue of the workspace's tracker, read (it must exist there) before a task an agent creates is stored; the
   * function links the stored task to it.
   */
  issueLink(workspaceId: string, issue: number): Promise<(taskId: string) => TaskIssue>;
  /** For the card: the task's issue and each comment's way there. */
  issueOf(taskId: string): TaskIssue | null;
  commentStates(taskId: string): Map<string, MirrorState>;
}

/** The one mirror slot the board's stores read; empty until the tracker module fills it. */
export class BoardMirrorSlot {
  current: BoardMirror | null = null;
}
