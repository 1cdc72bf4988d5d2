import type { SecretSummary } from '../../../shared/contract/vault';
import type { TaskIssue, TrackerSettings } from '../../../shared/contract/tracker';
import { NexusError } from '../../../shared/errors';
import type { Logger } from '../log';
import type { WorkspaceInfo } from '../workspaces';
import { trackerAdapters } from './adapters';
import { TrackerError, type Tracker, type TrackerIssue } from './tracker-port';
import type { TrackerStore } from './tracker-store';

export interface TrackerServiceDeps {
  store: TrackerStore;
  workspace(ref: string): WorkspaceInfo;
  /** The task's project (its workspace id) and title, or null when there is no such task. */
  task(id: string): { project: string | null; title: string } | null;
  secrets: {
    list(): SecretSummary[];
    resolve(id: string): Promise<{ value: string; host: string }>;
  };
  /** The task's card changed. */
  changed(taskId: string): void;
  log: Logger;
}

/**
 * A workspace's tracker: its settings, the adapter with the vault secret (only for the host the secret is bound
 * to, when it names one), and tasks' links to issues.
 */
export class TrackerService {
  constructor(private readonly d: TrackerServiceDeps) {}

  get(ref: string): { workspaceId: string; tracker: TrackerSettings | null } {
    const ws = this.d.workspace(ref);
    return { workspaceId: ws.id, tracker: this.d.store.settings(ws.id) };
  }

  set(ref: string, tracker: TrackerSettings | null): { workspaceId: string; tracker: TrackerSettings | null } {
    const ws = this.d.workspace(ref);
    if (tracker) {
      const secret = this.d.secrets.list().find((s) => s.id === tracker.secretId);
      if (!secret) throw new NexusError('not_found', `No vault secret "${tracker.secretId}".`);
      checkHost(secret.host, tracker.url);
      if (tracker.kind === 'github' && !tracker.project.includes('/'))
        throw new NexusError('bad_request', "GitHub's project is owner/repo.");
      if (tracker.kind === 'redmine' && tracker.pickup?.label !== undefined)
        throw new NexusError('bad_request', 'Redmine has no labels: pick issues up by assignee ("me" or a user id).');
    }
    this.d.store.setSettings(ws.id, tracker);
    return { workspaceId: ws.id, tracker };
  }

  /** The workspace's tracker, signed in with its vault secret. */
  async trackerFor(workspaceId: string): Promise<Tracker> {
    const s = this.d.store.settings(workspaceId);
    if (!s) throw new NexusError('bad_request', 'This workspace has no tracker; set one in Settings → Tracker.');
    const secret = await this.d.secrets.resolve(s.secretId);
    checkHost(secret.host, s.url);
    return trackerAdapters[s.kind](s.url, s.project, secret.value);
  }

  /** An issue of the workspace's tracker, or a typed refusal a caller reads. */
  async issue(workspaceId: string, number: number): Promise<TrackerIssue> {
    const tracker = await this.trackerFor(workspaceId);
    try {
      return await tracker.issue(number);
    } catch (e) {
      if (e instanceof TrackerError)
        throw new NexusError(e.status === 404 ? 'not_found' : e.refused ? 'bad_request' : 'unavailable', e.message);
      throw e;
    }
  }

  /** Links a task to an issue of its workspace's tracker, read from the tracker first (it must exist). */
  async link(taskId: string, number: number): Promise<TaskIssue> {
    const task = this.d.task(taskId);
    if (!task) throw new NexusError('not_found', `No task "${taskId}".`);
    if (!task.project) throw new NexusError('bad_request', 'This task belongs to no workspace, so to no tracker.');
    const issue = await this.issue(task.project, number);
    return this.linkRead(taskId, task.project, issue);
  }

  /** Links an issue already read; the card changes. */
  linkRead(taskId: string, workspaceId: string, issue: TrackerIssue): TaskIssue {
    const link = this.d.store.setLink({
      taskId,
      workspaceId,
      number: issue.number,
      title: issue.title,
      url: issue.url,
    });
    this.d.changed(taskId);
    return link;
  }
}

/** A secret bound to a host is only ever sent there. */
function checkHost(host: string, url: string): void {
  if (!host) return;
  const u = new URL(url);
  if (u.host !== host && u.hostname !== host)
    throw new NexusError('bad_request', `The secret is for ${host}; the tracker is at ${u.host}.`);
}
