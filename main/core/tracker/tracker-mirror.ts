import type { MirrorState, TaskIssue } from '../../../shared/contract/tracker';
import type { z } from 'zod';
import type { Task } from '../../../shared/platform-tools';
import type { BoardMirror, MirroredComment, Names } from '../platform';
import type { OutboxStore } from './outbox-store';
import type { TrackerService } from './tracker-service';
import type { TrackerStore } from './tracker-store';

/** Who wrote a comment, as its tracker copy says it: the session and workspace, and the agent record's name. */
export function signature(names: Names, c: Pick<MirroredComment, 'agentId' | 'runId'>): string {
  const a = names.actor(c.agentId, c.runId);
  const where = a.sessionName
    ? `session ${a.sessionName} in workspace ${a.workspaceName ?? '?'}`
    : a.workspaceName
      ? `workspace ${a.workspaceName}`
      : null;
  const agent = a.agentName && !a.agentName.startsWith('workspace:') ? `agent ${a.agentName}` : null;
  return `— ${[agent, where].filter(Boolean).join(', ') || 'an agent'}, via Nexus`;
}

/**
 * The board's mirror on a tracker: each comment and mapped status change of a linked task becomes an outbox row in
 * the transaction that stores it; the sender is kicked once that transaction has committed.
 */
export class TrackerMirror implements BoardMirror {
  constructor(
    private readonly d: {
      store: TrackerStore;
      outbox: OutboxStore;
      names: () => Names;
      kick(): void;
      service: Pick<TrackerService, 'issue' | 'linkRead'>;
    },
  ) {}

  commentStored(c: MirroredComment): void {
    const link = this.d.store.link(c.taskId);
    if (!link) return;
    this.d.outbox.add({
      taskId: c.taskId,
      workspaceId: link.workspaceId,
      issue: link.number,
      kind: 'comment',
      commentId: c.id,
      body: `${c.body}\n\n${signature(this.d.names(), c)}`,
    });
  }

  statusChanged(taskId: string, status: z.infer<typeof Task>['status']): void {
    const link = this.d.store.link(taskId);
    const mapped = link ? this.d.store.settings(link.workspaceId)?.statusMap[status] : undefined;
    if (!link || !mapped) return;
    this.d.outbox.add({
      taskId,
      workspaceId: link.workspaceId,
      issue: link.number,
      kind: 'status',
      status: mapped,
      body: `Nexus: the task is now ${status.replace(/_/g, ' ')}.`,
    });
  }

  /** A note of Nexus's own on a task's issue (a session started on it, its branch pushed). */
  note(taskId: string, body: string): boolean {
    const link = this.d.store.link(taskId);
    if (!link) return false;
    this.d.outbox.add({ taskId, workspaceId: link.workspaceId, issue: link.number, kind: 'note', body });
    this.d.kick();
    return true;
  }

  async issueLink(workspaceId: string, issue: number): Promise<(taskId: string) => TaskIssue> {
    const read = await this.d.service.issue(workspaceId, issue);
    return (taskId) => this.d.service.linkRead(taskId, workspaceId, read);
  }

  committed(): void {
    this.d.kick();
  }

  issueOf(taskId: string): TaskIssue | null {
    return this.d.store.link(taskId);
  }

  commentStates(taskId: string): Map<string, MirrorState> {
    return this.d.outbox.forComments(taskId);
  }
}
