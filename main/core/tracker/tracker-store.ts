import { z } from 'zod';
import { TrackerSettings, type TaskIssue } from '../../../shared/contract/tracker';
import type { Db } from '../store';

const SettingsRow = z.object({
  kind: z.string(),
  url: z.string(),
  project: z.string(),
  secret_id: z.string(),
  status_map: z.string(),
  pickup: z.string().nullable(),
});
const LinkRow = z.object({
  task_id: z.string(),
  workspace_id: z.string(),
  number: z.number().int(),
  title: z.string().nullable(),
  url: z.string(),
});
const toLink = (raw: unknown): TaskIssue => {
  const r = LinkRow.parse(raw);
  return {
    taskId: r.task_id,
    workspaceId: r.workspace_id,
    number: r.number,
    ref: `#${r.number}`,
    title: r.title,
    url: r.url,
  };
};

/** A workspace's tracker settings, tasks' issues and the issues picked up: SQL only. */
export class TrackerStore {
  constructor(private readonly db: Db) {}

  settings(workspaceId: string): TrackerSettings | null {
    const raw = this.db.prepare('SELECT * FROM tracker_settings WHERE workspace_id = ?').get(workspaceId);
    if (!raw) return null;
    const r = SettingsRow.parse(raw);
    return TrackerSettings.parse({
      kind: r.kind,
      url: r.url,
      project: r.project,
      secretId: r.secret_id,
      statusMap: JSON.parse(r.status_map) as unknown,
      pickup: r.pickup === null ? null : (JSON.parse(r.pickup) as unknown),
    });
  }

  /** Workspaces with a pick-up rule. */
  pickups(): { workspaceId: string; settings: TrackerSettings }[] {
    const rows = this.db.prepare('SELECT workspace_id FROM tracker_settings WHERE pickup IS NOT NULL').all() as {
      workspace_id: string;
    }[];
    return rows.flatMap((r) => {
      const settings = this.settings(r.workspace_id);
      return settings ? [{ workspaceId: r.workspace_id, settings }] : [];
    });
  }

  setSettings(workspaceId: string, s: TrackerSettings | null): void {
    if (!s) {
      this.db.prepare('DELETE FROM tracker_settings WHERE workspace_id = ?').run(workspaceId);
      return;
    }
    this.db
      .prepare(
        'INSERT INTO tracker_settings (workspace_id, kind, url, project, secret_id, status_map, pickup, updated_at) ' +
          'VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (workspace_id) DO UPDATE SET kind = excluded.kind, ' +
          'url = excluded.url, project = excluded.project, secret_id = excluded.secret_id, ' +
          'status_map = excluded.status_map, pickup = excluded.pickup, updated_at = excluded.updated_at',
      )
      .run(
        workspaceId,
        s.kind,
        s.url,
        s.project,
        s.secretId,
        JSON.stringify(s.statusMap),
        s.pickup ? JSON.stringify(s.pickup) : null,
        new Date().toISOString(),
      );
  }

  link(taskId: string): TaskIssue | null {
    const raw = this.db.prepare('SELECT * FROM task_issues WHERE task_id = ?').get(taskId);
    return raw ? toLink(raw) : null;
  }

  setLink(link: Omit<TaskIssue, 'ref'>): TaskIssue {
    this.db
      .prepare(
        'INSERT INTO task_issues (task_id, workspace_id, number, title, url, linked_at) VALUES (?, ?, ?, ?, ?, ?) ' +
          'ON CONFLICT (task_id) DO UPDATE SET workspace_id = excluded.workspace_id, number = excluded.number, ' +
          'title = excluded.title, url = excluded.url, linked_at = excluded.linked_at',
      )
      .run(link.taskId, link.workspaceId, link.number, link.title, link.url, new Date().toISOString());
    return { ...link, ref: `#${link.number}` };
  }

  /** Remembers that an issue was picked up; false when it already was (it starts one session, ever). */
  claimPickup(workspaceId: string, number: number): boolean {
    return (
      this.db
        .prepare('INSERT OR IGNORE INTO tracker_pickups (workspace_id, number, picked_at) VALUES (?, ?, ?)')
        .run(workspaceId, number, new Date().toISOString()).changes > 0
    );
  }

  releasePickup(workspaceId: string, number: number): void {
    this.db
      .prepare('DELETE FROM tracker_pickups WHERE workspace_id = ? AND number = ? AND session_id IS NULL')
      .run(workspaceId, number);
  }

  pickedSession(workspaceId: string, number: number, sessionId: string): void {
    this.db
      .prepare('UPDATE tracker_pickups SET session_id = ? WHERE workspace_id = ? AND number = ?')
      .run(sessionId, workspaceId, number);
  }
}
