import { z } from 'zod';
import type { TrackerPickup } from '../../../shared/contract/tracker';
import { trackerRequest } from './tracker-http';
import { TrackerError, type Tracker, type TrackerIssue } from './tracker-port';

const Issue = z.object({
  number: z.number().int(),
  title: z.string(),
  body: z.string().nullish(),
  html_url: z.string(),
  pull_request: z.unknown().optional(),
});
const Comment = z.object({ id: z.number().int(), body: z.string().nullish() });
const PAGE = 100;
/** How far back a lost comment is looked for: 10 pages of 100. */
const MAX_PAGES = 10;

/**
 * GitHub Issues over its REST API (2022-11-28): a fine-grained or classic token as Bearer, comments with ids
 * (`POST /repos/{owner}/{repo}/issues/{n}/comments`), a status is the issue's `state` (open / closed). Pull requests,
 * which the issues endpoints also list, are not issues here.
 */
export class GitHubTracker implements Tracker {
  private readonly base: string;

  constructor(
    url: string,
    private readonly repo: string,
    private readonly token: string,
    private readonly timeoutMs = 15_000,
  ) {
    this.base = url.replace(/\/+$/, '');
    if (!/^[^/]+\/[^/]+$/.test(repo)) throw new TrackerError(`GitHub's project is owner/repo, not "${repo}".`, true);
  }

  private call(what: string, method: string, path: string, body?: unknown): Promise<{ json: unknown }> {
    return trackerRequest(what, `${this.base}/repos/${this.repo}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        'user-agent': 'nexus-desktop',
      },
      body,
      timeoutMs: this.timeoutMs,
    });
  }

  private toIssue(i: z.infer<typeof Issue>): TrackerIssue {
    return { number: i.number, title: i.title, body: i.body ?? '', url: i.html_url };
  }

  async issue(number: number): Promise<TrackerIssue> {
    const i = Issue.parse((await this.call(`Reading issue #${number}`, 'GET', `/issues/${number}`)).json);
    if (i.pull_request !== undefined) throw new TrackerError(`#${number} is a pull request, not an issue.`, true, 404);
    return this.toIssue(i);
  }

  async comment(number: number, text: string): Promise<string | null> {
    const r = await this.call(`Commenting on issue #${number}`, 'POST', `/issues/${number}/comments`, { body: text });
    return String(Comment.parse(r.json).id);
  }

  async findComment(number: number, marker: string): Promise<{ found: boolean; remoteId: string | null }> {
    for (let page = 1; page <= MAX_PAGES; page++) {
      const r = await this.call(
        `Reading issue #${number}'s comments`,
        'GET',
        `/issues/${number}/comments?per_page=${PAGE}&page=${page}`,
      );
      const comments = z.array(Comment).parse(r.json);
      const c = comments.find((x) => x.body?.includes(marker));
      if (c) return { found: true, remoteId: String(c.id) };
      if (comments.length < PAGE) break;
    }
    return { found: false, remoteId: null };
  }

  /** The state first (setting it twice is harmless), then the note that carries the outbox marker. */
  async setStatus(number: number, status: string, text: string): Promise<void> {
    if (status !== 'open' && status !== 'closed')
      throw new TrackerError(`GitHub's status is open or closed, not "${status}".`, true);
    await this.call(`Moving issue #${number}`, 'PATCH', `/issues/${number}`, { state: status });
    await this.comment(number, text);
  }

  async pickable(rule: TrackerPickup): Promise<TrackerIssue[]> {
    const q = new URLSearchParams({
      state: 'open',
      sort: 'created',
      direction: 'asc',
      per_page: String(PAGE),
      ...(rule.label ? { labels: rule.label } : {}),
      ...(rule.assignee ? { assignee: rule.assignee } : {}),
    });
    const r = await this.call('Listing issues', 'GET', `/issues?${q.toString()}`);
    return z
      .array(Issue)
      .parse(r.json)
      .filter((i) => i.pull_request === undefined)
      .map((i) => this.toIssue(i));
  }
}
