import { z } from 'zod';
import type { TrackerPickup } from '../../../shared/contract/tracker';
import { trackerRequest } from './tracker-http';
import { TrackerError, type Tracker, type TrackerIssue } from './tracker-port';

const Issue = z.object({
  id: z.number().int(),
  subject: z.string(),
  description: z.string().nullish(),
  project: z.object({ id: z.number().int() }),
});
const Journals = z.object({
  issue: z.object({ journals: z.array(z.object({ id: z.number().int(), notes: z.string().nullish() })).default([]) }),
});

/**
 * Redmine's REST API (5.x; docs/tracker.md has what was measured): the API key in `X-Redmine-API-Key`, comments
 * are journal notes (`PUT /issues/<n>.json`, answered 204 with no id), a status change is a `status_id` on the same
 * call. Issues of other projects are refused: a task links only its workspace's project.
 */
export class RedmineTracker implements Tracker {
  private projectId: number | null = null;
  private readonly base: string;

  constructor(
    url: string,
    private readonly project: string,
    private readonly apiKey: string,
    private readonly timeoutMs = 15_000,
  ) {
    this.base = url.replace(/\/+$/, '');
  }

  private call(what: string, method: string, path: string, body?: unknown): Promise<{ json: unknown }> {
    return trackerRequest(what, `${this.base}${path}`, {
      method,
      headers: { 'x-redmine-api-key': this.apiKey },
      body,
      timeoutMs: this.timeoutMs,
    });
  }

  private async ownProject(): Promise<number> {
    if (this.projectId === null) {
      const r = await this.call('Reading the project', 'GET', `/projects/${encodeURIComponent(this.project)}.json`);
      this.projectId = z.object({ project: z.object({ id: z.number().int() }) }).parse(r.json).project.id;
    }
    return this.projectId;
  }

  private toIssue(i: z.infer<typeof Issue>): TrackerIssue {
    return { number: i.id, title: i.subject, body: i.description ?? '', url: `${this.base}/issues/${i.id}` };
  }

  async issue(number: number): Promise<TrackerIssue> {
    const [r, project] = await Promise.all([
      this.call(`Reading issue #${number}`, 'GET', `/issues/${number}.json`),
      this.ownProject(),
    ]);
    const issue = z.object({ issue: Issue }).parse(r.json).issue;
    if (issue.project.id !== project)
      throw new TrackerError(`Issue #${number} is not in project ${this.project}.`, true, 404);
    return this.toIssue(issue);
  }

  async comment(number: number, text: string): Promise<string | null> {
    await this.call(`Commenting on issue #${number}`, 'PUT', `/issues/${number}.json`, { issue: { notes: text } });
    return null;
  }

  async findComment(number: number, marker: string): Promise<{ found: boolean; remoteId: string | null }> {
    const r = await this.call(`Reading issue #${number}`, 'GET', `/issues/${number}.json?include=journals`);
    const j = Journals.parse(r.json).issue.journals.find((x) => x.notes?.includes(marker));
    return j ? { found: true, remoteId: String(j.id) } : { found: false, remoteId: null };
  }

  async setStatus(number: number, status: string, text: string): Promise<void> {
    if (!/^\d+$/.test(status)) throw new TrackerError(`Redmine's status "${status}" is not a status id.`, true);
    await this.call(`Moving issue #${number}`, 'PUT', `/issues/${number}.json`, {
      issue: { status_id: Number(status), notes: text },
    });
  }

  async pickable(rule: TrackerPickup): Promise<TrackerIssue[]> {
    if (rule.label !== undefined)
      throw new TrackerError('Redmine has no labels: pick issues up by assignee ("me" or a user id).', true);
    const q = new URLSearchParams({
      project_id: this.project,
      status_id: 'open',
      sort: 'id',
      limit: '100',
      ...(rule.assignee ? { assigned_to_id: rule.assignee } : {}),
    });
    const r = await this.call('Listing issues', 'GET', `/issues.json?${q.toString()}`);
    return z
      .object({ issues: z.array(Issue) })
      .parse(r.json)
      .issues.map((i) => this.toIssue(i));
  }
}
