import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A STAND-IN for GitHub's REST API (version 2022-11-28), not GitHub: exactly the five Issues endpoints that
 * main/core/tracker/github.ts calls, answering with the request and response shapes GitHub documents
 * (docs.github.com/en/rest/issues/issues and …/issues/comments), for one repository, on loopback:
 *
 * - `GET /repos/{owner}/{repo}/issues/{n}` → 200 issue (a pull request is an issue with `pull_request`), 404
 * - `PATCH /repos/{owner}/{repo}/issues/{n}` `{state}` → 200 issue (`state_reason` `completed` on close), 422
 * - `GET /repos/{owner}/{repo}/issues?state&labels&assignee&sort&direction&per_page&page` → 200 list, `Link` header
 * - `POST /repos/{owner}/{repo}/issues/{n}/comments` `{body}` → 201 comment with `id`, 404, 422 without body
 * - `GET /repos/{owner}/{repo}/issues/{n}/comments?per_page&page` → 200 list oldest first, `Link` header
 *
 * Every request needs `Authorization: Bearer <token>` (else 401 "Bad credentials") and takes
 * `X-GitHub-Api-Version: 2022-11-28` (another version answers 400, as GitHub does). Faults for the outbox tests:
 * `down` answers 503, `refuse` 403; `loseAnswerOf(n)` stores the next n comments and then drops the connection without an answer.
 */
export interface GitHubIssuesStandin {
  /** The API root to configure (GitHub's would be https://api.github.com). */
  url: string;
  token: string;
  /** owner/repo */
  repo: string;
  /** Files an issue (or, with `pullRequest`, a pull request) as the repository's next number. */
  file(o: { title: string; body?: string; labels?: string[]; assignee?: string; pullRequest?: boolean }): number;
  /** A comment by someone else, straight into the store. */
  seedComment(issue: number, body: string): void;
  comments(issue: number): { id: number; body: string }[];
  issueState(issue: number): 'open' | 'closed';
  /** Every request, `METHOD path?query`, in order. */
  requests: string[];
  /** While true, every request answers 503. */
  down: boolean;
  /** While set, every request answers 403 "Resource not accessible by personal access token" (a token without the scope). */
  refuse: boolean;
  /** The next `n` comment creations are stored but their answer is lost (the socket is destroyed). */
  loseAnswerOf(n: number): void;
  close(): Promise<void>;
}

interface StoredIssue {
  number: number;
  title: string;
  body: string | null;
  labels: string[];
  assignee: string | null;
  state: 'open' | 'closed';
  pullRequest: boolean;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
}

const API_VERSION = '2022-11-28';

/** GitHub's `assignee` filter: a login, `*` (anyone), `none` (no one), or absent (no filter). */
const matchesAssignee = (has: string | null, wanted: string | null): boolean =>
  !wanted || (wanted === '*' ? has !== null : wanted === 'none' ? has === null : has === wanted);
const DOCS = 'https://docs.github.com/rest';

export async function startGitHubIssuesStandin(
  o: { repo?: string; token?: string } = {},
): Promise<GitHubIssuesStandin> {
  const repo = o.repo ?? 'nexus-tests/widgets';
  const token = o.token ?? 'github_pat_standin_0123456789abcdefghijklmnopqrstuvwxyz';
  const [owner] = repo.split('/');
  const issues = new Map<number, StoredIssue>();
  const comments = new Map<number, { id: number; body: string; user: string; createdAt: string }[]>();
  const requests: string[] = [];
  let nextNumber = 1;
  let nextCommentId = 1_000_000;
  let lose = 0;
  let base = '';
  const user = (login: string) => ({
    login,
    id: login.length * 1000 + 7,
    node_id: `U_${login}`,
    type: 'User',
    site_admin: false,
    url: `${base}/users/${login}`,
    html_url: `https://github.com/${login}`,
  });
  const issueJson = (i: StoredIssue) => ({
    id: 500_000 + i.number,
    node_id: `I_${i.number}`,
    url: `${base}/repos/${repo}/issues/${i.number}`,
    repository_url: `${base}/repos/${repo}`,
    comments_url: `${base}/repos/${repo}/issues/${i.number}/comments`,
    html_url: `https://github.com/${repo}/${i.pullRequest ? 'pull' : 'issues'}/${i.number}`,
    number: i.number,
    state: i.state,
    state_reason: i.state === 'closed' ? 'completed' : null,
    title: i.title,
    body: i.body,
    user: user(owner ?? 'owner'),
    labels: i.labels.map((name, k) => ({ id: 9000 + k, node_id: `L_${name}`, name, color: 'ededed', default: false })),
    assignee: i.assignee ? user(i.assignee) : null,
    assignees: i.assignee ? [user(i.assignee)] : [],
    locked: false,
    comments: comments.get(i.number)?.length ?? 0,
    created_at: i.createdAt,
    updated_at: i.updatedAt,
    closed_at: i.closedAt,
    author_association: 'OWNER',
    ...(i.pullRequest
      ? {
          pull_request: {
            url: `${base}/repos/${repo}/pulls/${i.number}`,
            html_url: `https://github.com/${repo}/pull/${i.number}`,
            diff_url: `https://github.com/${repo}/pull/${i.number}.diff`,
            patch_url: `https://github.com/${repo}/pull/${i.number}.patch`,
          },
        }
      : {}),
  });
  const commentJson = (issue: number, c: { id: number; body: string; user: string; createdAt: string }) => ({
    id: c.id,
    node_id: `IC_${c.id}`,
    url: `${base}/repos/${repo}/issues/comments/${c.id}`,
    html_url: `https://github.com/${repo}/issues/${issue}#issuecomment-${c.id}`,
    issue_url: `${base}/repos/${repo}/issues/${issue}`,
    body: c.body,
    user: user(c.user),
    created_at: c.createdAt,
    updated_at: c.createdAt,
    author_association: 'OWNER',
  });

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'x-github-api-version-selected': API_VERSION,
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      ...headers,
    });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };
  const error = (res: ServerResponse, status: number, message: string) =>
    send(res, status, { message, documentation_url: DOCS, status: String(status) });

  /** One page of a list, with the `Link` header GitHub sends (rel next / last). */
  const page = <T>(res: ServerResponse, url: URL, all: T[]) => {
    const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30)));
    const n = Math.max(1, Number(url.searchParams.get('page') ?? 1));
    const last = Math.max(1, Math.ceil(all.length / perPage));
    const link = (p: number, rel: string) => {
      const u = new URL(url.toString());
      u.searchParams.set('page', String(p));
      return `<${base}${u.pathname}${u.search}>; rel="${rel}"`;
    };
    const links = n < last ? [link(n + 1, 'next'), link(last, 'last')] : [];
    send(res, 200, all.slice((n - 1) * perPage, n * perPage), links.length ? { link: links.join(', ') } : {});
  };

  const readJson = (req: IncomingMessage): Promise<unknown> =>
    new Promise((resolve) => {
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('end', () => {
        try {
          resolve(parts.length ? JSON.parse(Buffer.concat(parts).toString('utf8')) : null);
        } catch {
          resolve(undefined);
        }
      });
    });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://standin');
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    const payload = req.method === 'POST' || req.method === 'PATCH' ? await readJson(req) : null;
    if (standin.down) return error(res, 503, 'Service Unavailable');
    if (standin.refuse) return error(res, 403, 'Resource not accessible by personal access token');
    if (req.headers.authorization !== `Bearer ${token}`) return error(res, 401, 'Bad credentials');
    const version = req.headers['x-github-api-version'];
    if (version !== undefined && version !== API_VERSION)
      return error(res, 400, `API version ${String(version)} is not supported.`);
    if (payload === undefined) return error(res, 400, 'Problems parsing JSON');
    const prefix = `/repos/${repo}/issues`;
    if (!url.pathname.startsWith(prefix)) return error(res, 404, 'Not Found');
    const rest = url.pathname.slice(prefix.length);

    if (rest === '' && req.method === 'GET') {
      const state = url.searchParams.get('state') ?? 'open';
      const labels = (url.searchParams.get('labels') ?? '').split(',').filter(Boolean);
      const assignee = url.searchParams.get('assignee');
      let list = [...issues.values()].filter(
        (i) =>
          (state === 'all' || i.state === state) &&
          labels.every((l) => i.labels.includes(l)) &&
          matchesAssignee(i.assignee, assignee),
      );
      list = list.sort((a, b) => a.number - b.number);
      if ((url.searchParams.get('direction') ?? 'desc') === 'desc') list.reverse();
      return page(res, url, list.map(issueJson));
    }
    const m = /^\/([0-9]+)(\/comments)?$/.exec(rest);
    const issue = m ? issues.get(Number(m[1])) : undefined;
    if (!m || !issue) return error(res, 404, 'Not Found');
    const number = issue.number;
    if (!m[2] && req.method === 'GET') return send(res, 200, issueJson(issue));
    if (!m[2] && req.method === 'PATCH') {
      const state = (payload as { state?: unknown } | null)?.state;
      if (state !== undefined && state !== 'open' && state !== 'closed')
        return send(res, 422, {
          message: 'Validation Failed',
          errors: [{ resource: 'Issue', code: 'invalid', field: 'state' }],
          documentation_url: DOCS,
        });
      if (state) {
        issue.state = state;
        issue.closedAt = state === 'closed' ? new Date().toISOString() : null;
      }
      issue.updatedAt = new Date().toISOString();
      return send(res, 200, issueJson(issue));
    }
    if (m[2] && req.method === 'GET') {
      const list = comments.get(number) ?? [];
      return page(
        res,
        url,
        list.map((c) => commentJson(number, c)),
      );
    }
    if (m[2] && req.method === 'POST') {
      const body = (payload as { body?: unknown } | null)?.body;
      if (typeof body !== 'string' || body.length === 0)
        return send(res, 422, {
          message: 'Validation Failed',
          errors: [{ resource: 'IssueComment', code: 'missing_field', field: 'body' }],
          documentation_url: DOCS,
        });
      const c = { id: nextCommentId++, body, user: owner ?? 'owner', createdAt: new Date().toISOString() };
      comments.set(number, [...(comments.get(number) ?? []), c]);
      if (lose > 0) {
        lose--;
        res.destroy(); // stored, and the answer never comes
        return;
      }
      return send(res, 201, commentJson(number, c), { location: `${base}/repos/${repo}/issues/comments/${c.id}` });
    }
    return error(res, 404, 'Not Found');
  };

  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const now = () => new Date().toISOString();

  const standin: GitHubIssuesStandin = {
    url: base,
    token,
    repo,
    requests,
    down: false,
    refuse: false,
    file: (i) => {
      const number = nextNumber++;
      issues.set(number, {
        number,
        title: i.title,
        body: i.body ?? null,
        labels: i.labels ?? [],
        assignee: i.assignee ?? null,
        state: 'open',
        pullRequest: i.pullRequest ?? false,
        createdAt: now(),
        updatedAt: now(),
        closedAt: null,
      });
      return number;
    },
    seedComment: (issue, body) =>
      comments.set(issue, [
        ...(comments.get(issue) ?? []),
        { id: nextCommentId++, body, user: 'someone-else', createdAt: now() },
      ]),
    comments: (issue) => (comments.get(issue) ?? []).map((c) => ({ id: c.id, body: c.body })),
    issueState: (issue) => issues.get(issue)?.state ?? 'open',
    loseAnswerOf: (n) => void (lose = n),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return standin;
}
