import type { ChangesSummary, SessionChanges as Changes } from '../../../shared/contract/sessions';
import type { ShipExec, ShipGit, ShipTarget } from './ship-git';
import { boundPatches, changedFiles, parseLog, parseNumstatZ } from './ship-parse';

/** Size bounds of one diff answer. */
export const DIFF_BOUNDS = {
  /** Files per page unless the caller asks for fewer or more (at most 200). */
  pageSize: 50,
  /** Characters of one file's diff in a page. */
  perFile: 64 * 1024,
  /** Characters of all diffs in a page. */
  total: 512 * 1024,
  /** Characters of one file asked for whole. */
  wholeFile: 4 * 1024 * 1024,
  /** Commits listed. */
  commits: 200,
};

/** The session as this module needs it. */
export interface ShipSession {
  id: string;
  branch: string;
  worktree: string;
  workspace: ShipTarget;
}

export type { ShipExec };

const summaryOf = (
  scan: Awaited<ReturnType<ShipGit['scan']>>,
  files: { additions: number | null; deletions: number | null }[],
): ChangesSummary => ({
  base: scan.base,
  ahead: scan.ahead,
  behind: scan.behind,
  changedFiles: files.length,
  additions: files.reduce((n, f) => n + (f.additions ?? 0), 0),
  deletions: files.reduce((n, f) => n + (f.deletions ?? 0), 0),
  uncommitted: scan.uncommitted,
  unpushed: scan.unpushed,
  at: new Date().toISOString(),
});

/**
 * What a session changed: its commits since the base branch and its worktree against the base
 * (committed and uncommitted, untracked files included), paged by file and bounded in size.
 */
export class ShipReader {
  constructor(private readonly git: ShipGit) {}

  /** Ahead/behind and counts only: one exec, no diff text. */
  async summary(s: ShipSession): Promise<ChangesSummary> {
    const scan = await this.git.scan(s.workspace, s.worktree, s.branch, { keep: false, logMax: 0 });
    return summaryOf(scan, parseNumstatZ(scan.numstat));
  }

  async diff(s: ShipSession, page: { offset?: number; limit?: number; file?: string }): Promise<Changes> {
    const scan = await this.git.scan(s.workspace, s.worktree, s.branch, {
      keep: true,
      logMax: DIFF_BOUNDS.commits + 1,
    });
    const scratch = scan.scratch as string;
    const all = changedFiles(scan.numstat, scan.names);
    const commits = parseLog(scan.log);
    const offset = page.file ? 0 : (page.offset ?? 0);
    const files = page.file
      ? all.filter((f) => f.path === page.file)
      : all.slice(offset, offset + (page.limit ?? DIFF_BOUNDS.pageSize));
    const notes: string[] = [];
    if (page.file && files.length === 0) notes.push(`${page.file} is not among the changed files.`);
    const withText = files;
    let patches: Changes['patches'] = [];
    if (withText.length === 0) await this.git.discard(s.workspace, scratch);
    else {
      const perFile = page.file ? DIFF_BOUNDS.wholeFile : DIFF_BOUNDS.perFile;
      const texts = await this.git.patches(s.workspace, s.worktree, scratch, withText, perFile);
      const sections = withText.map((f) => ({ path: f.path, diff: texts.get(f.path)?.diff ?? '' }));
      const total = page.file ? DIFF_BOUNDS.wholeFile : DIFF_BOUNDS.total;
      const bounded = boundPatches(sections, { perFile, total });
      patches = bounded.patches.map((p) => (texts.get(p.path)?.cut ? { ...p, truncated: true } : p));
      const cut = patches.filter((p) => p.truncated).length;
      if (cut > 0)
        notes.push(
          page.file
            ? `This file's diff is larger than ${Math.round(perFile / 1024 / 1024)} MB; it is cut there.`
            : `${cut} file diff${cut === 1 ? ' is' : 's are'} larger than ${perFile / 1024} KB and cut there; open a file to see it whole.`,
        );
      if (bounded.omitted.length > 0)
        notes.push(
          `${bounded.omitted.length} file${bounded.omitted.length === 1 ? '' : 's'} on this page show no diff: ` +
            `the page's diff is limited to ${total / 1024} KB; open a file to see it whole.`,
        );
    }
    const rest = all.length - (offset + files.length);
    if (!page.file && rest > 0)
      notes.push(`${rest} more changed files; ask for the next page (offset ${offset + files.length}).`);
    return {
      sessionId: s.id,
      branch: s.branch,
      summary: summaryOf(scan, all),
      commits: commits.slice(0, DIFF_BOUNDS.commits),
      commitsTruncated: commits.length > DIFF_BOUNDS.commits,
      files,
      offset,
      patches,
      note: notes.length > 0 ? notes.join(' ') : null,
    };
  }
}
