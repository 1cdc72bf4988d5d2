import { type AgentKind, type Session, SessionName } from '../../../shared/contract/sessions';
import { errorMessage } from '../../../shared/errors';
import type { Disposable } from '../disposable';
import type { Logger } from '../log';
import type { WorkspaceInfo } from '../workspaces';
import type { TrackerIssue } from './tracker-port';
import type { TrackerMirror } from './tracker-mirror';
import type { TrackerService } from './tracker-service';
import type { TrackerStore } from './tracker-store';

export interface IssueSessionsDeps {
  service: TrackerService;
  store: TrackerStore;
  mirror: TrackerMirror;
  workspace(ref: string): WorkspaceInfo;
  createSession(input: {
    workspace: WorkspaceInfo;
    name: string;
    initialMessage: string;
    agent?: AgentKind | undefined;
  }): Promise<Session>;
  log: Logger;
}

/** The first message of a session on an issue: its title, a blank line and its body, byte for byte. */
export const firstMessageOf = (issue: Pick<TrackerIssue, 'title' | 'body'>): string =>
  issue.body ? `${issue.title}\n\n${issue.body}` : issue.title;

/** `issue-<n>-<words of the title>`, or the given name with `issue-<n>-` in front unless it has it: the branch is `nexus/<name>`. */
export function sessionNameFor(number: number, given: string | undefined, title: string): string {
  const key = `issue-${number}`;
  const words = (given ?? title)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const base = given?.includes(key) ? words : words ? `${key}-${words}` : key;
  const name = base.slice(0, 63).replace(/[-._]+$/, '');
  return SessionName.safeParse(name).success ? name : key;
}

/**
 * Sessions started from issues: "start a session on issue #N" (Board, MCP, `nexus new --issue`) and the pick-up of
 * issues the workspace's rule matches. The session's task (made from the first message, titled with the issue's
 * title) is linked to the issue, and the issue hears of the session and, later, of its pushed branch.
 */
export class IssueSessions {
  /** When each workspace's tracker was last asked for issues to pick up. */
  private readonly lastLook = new Map<string, number>();

  constructor(private readonly d: IssueSessionsDeps) {}

  async start(input: {
    workspace: string | WorkspaceInfo;
    issue: number;
    name?: string | undefined;
    agent?: AgentKind | undefined;
  }): Promise<Session> {
    const ws = typeof input.workspace === 'string' ? this.d.workspace(input.workspace) : input.workspace;
    const issue = await this.d.service.issue(ws.id, input.issue);
    const name = sessionNameFor(issue.number, input.name, issue.title);
    const session = await this.d.createSession({
      workspace: ws,
      name,
      initialMessage: firstMessageOf(issue),
      agent: input.agent,
    });
    if (session.taskId) {
      this.d.service.linkRead(session.taskId, ws.id, issue);
      this.d.mirror.note(
        session.taskId,
        `Nexus started session ${session.name} in workspace ${ws.name} on this issue (branch ${session.branch}).`,
      );
    }
    return session;
  }

  /** A pushed branch of a session on an issue: the link goes on the issue. */
  pushed(r: { taskId: string | null; branch: string; link: { url: string } | null }): void {
    if (!r.taskId) return;
    this.d.mirror.note(r.taskId, `Nexus pushed branch ${r.branch}${r.link ? `: ${r.link.url}` : '.'}`);
  }

  /** Looks at the workspaces whose pick-up is due; an issue starts one session, ever (tracker_pickups). */
  async pickUp(now = Date.now()): Promise<void> {
    for (const { workspaceId, settings } of this.d.store.pickups()) {
      const rule = settings.pickup;
      if (!rule || now - (this.lastLook.get(workspaceId) ?? 0) < rule.everySeconds * 1000) continue;
      this.lastLook.set(workspaceId, now);
      try {
        const ws = this.d.workspace(workspaceId);
        if (!ws.running) continue;
        const tracker = await this.d.service.trackerFor(workspaceId);
        for (const issue of await tracker.pickable(rule)) {
          if (!this.d.store.claimPickup(workspaceId, issue.number)) continue;
          try {
            const s = await this.start({ workspace: ws, issue: issue.number, agent: rule.agent });
            this.d.store.pickedSession(workspaceId, issue.number, s.id);
            this.d.log.info('tracker issue picked up', { workspaceId, issue: issue.number, sessionId: s.id });
          } catch (e) {
            // No session was made: the issue is looked at again next time.
            this.d.store.releasePickup(workspaceId, issue.number);
            throw e;
          }
        }
      } catch (e) {
        this.d.log.warn('tracker pick-up failed', { workspaceId, error: errorMessage(e) });
      }
    }
  }

  /** Polls each workspace at its own rate (at least a minute; no webhook reaches a desktop). */
  follow(tickMs = 15_000): Disposable {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      void this.pickUp().finally(() => (running = false));
    }, tickMs);
    timer.unref();
    return { dispose: () => clearInterval(timer) };
  }
}
