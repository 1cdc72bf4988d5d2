import type { MessageDelivery } from '../../../shared/contract/sessions';
import type { ReviewComment } from '../../../shared/contract/review-comments';
import { NexusError } from '../../../shared/errors';
import type { Disposable } from '../disposable';
import type { Db } from '../store';
import { CommentStore } from './comment-store';
import { GIT_PRELUDE } from '../../../shared/git-scripts';
import { runScript } from './container-git';
import { sessionTarget, type ReviewDeps } from './review-deps';

/** Most lines one comment may quote, and the characters of a quote carried in the message. */
const MAX_SPAN = 500;
const QUOTE_IN_MESSAGE = 4000;

/** Lines `from`..`to` of a file inside the worktree (a path that leaves it, or lines past its end, are refused). */
const READ_LINES = `${GIT_PRELUDE}
wt=$1; p=$2; from=$3; to=$4
cd "$wt" 2>/dev/null || { echo "The session's worktree is gone." >&2; exit 3; }
r=$(realpath -e -- "$p" 2>/dev/null) && [ -f "$r" ] || { echo "$p is not a file in the session's worktree." >&2; exit 6; }
case "$r" in "$(pwd -P)"/*) ;; *) echo "$p is not a file in the session's worktree." >&2; exit 6 ;; esac
n=$(awk 'END { print NR }' "$r")
[ "$to" -le "$n" ] || { echo "$p has $n lines; line $to is not there." >&2; exit 6; }
sed -n "$from,\${to}p" "$r"
`;

/** Delivery statuses after which the comments count as sent (the others leave them drafts to send again). */
const TAKEN: ReadonlySet<MessageDelivery> = new Set(['delivered', 'queued', 'held', 'sent_unconfirmed']);

const fence = (text: string): string => {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
};

/** The one message a review becomes: every comment with its file, line range and the code it is about. */
export function reviewMessage(comments: ReviewComment[]): string {
  const parts = comments.map((c, i) => {
    const lines = c.startLine === c.endLine ? `line ${c.startLine}` : `lines ${c.startLine}-${c.endLine}`;
    const quote = c.quote.length > QUOTE_IN_MESSAGE ? `${c.quote.slice(0, QUOTE_IN_MESSAGE)}\n[…]` : c.quote;
    const f = fence(quote);
    return `${i + 1}. ${c.path}, ${lines}:\n${f}\n${quote.replace(/\n$/, '')}\n${f}\n${c.body}`;
  });
  const n = comments.length;
  return (
    `Review from the operator: ${n} comment${n === 1 ? '' : 's'} on your changes. Each names a file in your ` +
    `worktree, its lines and the code there when the comment was made.\n\n${parts.join('\n\n')}\n\n` +
    'Please address each comment in your next turn.'
  );
}

/**
 * Comments on a session's diff lines. Drafts collect as a review; `send` delivers them as one message
 * through sessions.send_message (the inbox, never the terminal: no comment can answer a permission
 * prompt). After the agent's next turn, each sent comment says whether its lines changed.
 */
export class ReviewComments {
  private readonly store: CommentStore;

  constructor(
    private readonly d: ReviewDeps,
    db: Db,
  ) {
    this.store = new CommentStore(db);
  }

  /** Looks at sent comments' lines again when the session's agent ends a turn. */
  follow(): Disposable {
    return this.d.sessions.on('turnEnded', ({ sessionId }) => {
      this.afterTurn(sessionId).catch((e: unknown) =>
        this.d.log.debug('review comments after a turn: not looked at', { sessionId, error: e }),
      );
    });
  }

  async list(ref: string): Promise<{ sessionId: string; comments: ReviewComment[] }> {
    const s = await this.d.sessions.get(ref);
    return { sessionId: s.id, comments: this.store.list(s.id) };
  }

  private async lines(ref: string, path: string, from: number, to: number) {
    const t = await sessionTarget(this.d, ref);
    const quote = await runScript(
      this.d.runtime,
      t.ws,
      READ_LINES,
      [t.worktree, path, String(from), String(to)],
      'read of the lines',
      { maxOutput: 1024 * 1024 },
    );
    return { session: t.session, quote };
  }

  async add(
    ref: string,
    c: { path: string; startLine: number; endLine: number; body: string },
  ): Promise<ReviewComment> {
    if (c.endLine < c.startLine) throw new NexusError('bad_request', 'endLine must not be before startLine.');
    if (c.endLine - c.startLine >= MAX_SPAN)
      throw new NexusError('bad_request', `Comment on at most ${MAX_SPAN} lines.`);
    if (c.path.startsWith('/') || c.path.split('/').includes('..'))
      throw new NexusError('bad_request', 'The path is relative to the worktree and stays inside it.');
    const { session, quote } = await this.lines(ref, c.path, c.startLine, c.endLine);
    const comment = this.store.insert({ sessionId: session.id, ...c, quote });
    this.d.events.emit('comments.changed', { sessionId: session.id });
    return comment;
  }

  delete(id: string): { deleted: true; id: string } {
    const c = this.store.get(id);
    if (!c) throw new NexusError('not_found', `No review comment ${id}.`);
    if (!this.store.deleteDraft(id))
      throw new NexusError('conflict', 'A sent comment stays on its lines; only drafts are deleted.');
    this.d.events.emit('comments.changed', { sessionId: c.sessionId });
    return { deleted: true, id };
  }

  /** Sends every draft as one message; they become sent unless the agent refused it. */
  async send(ref: string): Promise<{ sessionId: string; sent: number; status: MessageDelivery; note: string }> {
    const s = await this.d.sessions.get(ref);
    const drafts = this.store.list(s.id, 'draft');
    if (drafts.length === 0) throw new NexusError('conflict', `Session ${s.name} has no draft comments to send.`);
    const r = await this.d.sessions.sendMessage(s.id, reviewMessage(drafts));
    const taken = TAKEN.has(r.status);
    if (taken)
      this.store.markSent(
        drafts.map((c) => c.id),
        new Date().toISOString(),
      );
    this.d.events.emit('comments.changed', { sessionId: s.id });
    return { sessionId: s.id, sent: taken ? drafts.length : 0, status: r.status, note: r.note };
  }

  private async afterTurn(sessionId: string): Promise<void> {
    const waiting = this.store.awaitingTurn(sessionId);
    if (waiting.length === 0) return;
    for (const c of waiting) {
      const now = await this.lines(sessionId, c.path, c.startLine, c.endLine).catch((e: unknown) => {
        if (e instanceof NexusError && e.code === 'bad_request') return null; // the file or those lines are gone
        throw e;
      });
      this.store.setLinesChanged(c.id, now?.quote !== c.quote);
    }
    this.d.events.emit('comments.changed', { sessionId });
  }
}
