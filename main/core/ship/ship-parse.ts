import type { ChangedFile, ChangedFileStatus, FilePatch, SessionCommit } from '../../../shared/contract/sessions';

/**
 * Pure readers of git's output for the session changes view: `--numstat -z`, `--name-status -z`,
 * `log` with unit/record separators, and a unified diff split per file and cut to bounds.
 */

export interface NumstatEntry {
  path: string;
  oldPath: string | null;
  additions: number | null;
  deletions: number | null;
}

/** `git diff --numstat -z`: `add\tdel\tpath\0`, or for a rename `add\tdel\t\0old\0new\0`; `-` counts = binary. */
export function parseNumstatZ(out: string): NumstatEntry[] {
  const parts = out.split('\0');
  const entries: NumstatEntry[] = [];
  for (let i = 0; i < parts.length; i++) {
    const head = parts[i] ?? '';
    if (head === '') continue;
    const m = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(head);
    if (!m) continue;
    const count = (s: string | undefined): number | null => (s === '-' || s === undefined ? null : Number(s));
    let path = m[3] ?? '';
    let oldPath: string | null = null;
    if (path === '') {
      oldPath = parts[++i] ?? '';
      path = parts[++i] ?? '';
    }
    entries.push({ path, oldPath, additions: count(m[1]), deletions: count(m[2]) });
  }
  return entries;
}

const STATUS: Record<string, ChangedFileStatus> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'type_changed',
};

/** `git diff --name-status -z`: `M\0path\0`, `R087\0old\0new\0`. Keyed by the new path. */
export function parseNameStatusZ(out: string): Map<string, { status: ChangedFileStatus; oldPath: string | null }> {
  const parts = out.split('\0');
  const byPath = new Map<string, { status: ChangedFileStatus; oldPath: string | null }>();
  for (let i = 0; i < parts.length; i++) {
    const code = parts[i] ?? '';
    if (code === '') continue;
    const letter = code[0] ?? '';
    const status = STATUS[letter] ?? 'modified';
    if (letter === 'R' || letter === 'C') {
      const oldPath = parts[++i] ?? '';
      byPath.set(parts[++i] ?? '', { status, oldPath });
    } else byPath.set(parts[++i] ?? '', { status, oldPath: null });
  }
  return byPath;
}

/** The changed files: counts from numstat, status from name-status, in git's (path) order. */
export function changedFiles(numstatZ: string, nameStatusZ: string): ChangedFile[] {
  const statuses = parseNameStatusZ(nameStatusZ);
  return parseNumstatZ(numstatZ).map((n) => {
    const s = statuses.get(n.path);
    const binary = n.additions === null || n.deletions === null;
    return {
      path: n.path,
      oldPath: s?.oldPath ?? n.oldPath,
      status: s?.status ?? (n.oldPath ? 'renamed' : 'modified'),
      additions: n.additions,
      deletions: n.deletions,
      binary,
    };
  });
}

export const LOG_FORMAT = '%H%x1f%s%x1f%an%x1f%aI%x1e';

/** `git log --format=LOG_FORMAT`: one record per commit. */
export function parseLog(out: string): SessionCommit[] {
  return out
    .split('\x1e')
    .map((r) => r.replace(/^\n+/, ''))
    .filter((r) => r.includes('\x1f'))
    .map((r) => {
      const [sha = '', subject = '', author = '', at = ''] = r.split('\x1f');
      return { sha, subject, author, at: at.trim() };
    });
}

/** C-style quoted path as git prints it when core.quotePath applies (`"a\\tb"`, octal bytes). */
export function unquotePath(s: string): string {
  if (!s.startsWith('"') || !s.endsWith('"') || s.length < 2) return s;
  const body = s.slice(1, -1);
  const bytes: number[] = [];
  const esc: Record<string, number> = { n: 10, t: 9, r: 13, b: 8, f: 12, v: 11, a: 7, '\\': 92, '"': 34 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? '';
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const next = body[i + 1] ?? '';
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(esc[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The new path a `diff --git` section is about, from its rename/`+++`/header lines. */
function sectionPath(section: string): string {
  const lines = section.split('\n', 12);
  for (const l of lines)
    if (l.startsWith('rename to ') || l.startsWith('copy to ')) return unquotePath(l.replace(/^(rename|copy) to /, ''));
  // git ends these lines with a tab when the name holds a space.
  const name = (l: string): string => unquotePath(l.slice(4).replace(/\t$/, ''));
  for (const l of lines) if (l.startsWith('+++ ') && l !== '+++ /dev/null') return name(l).replace(/^b\//, '');
  for (const l of lines) if (l.startsWith('--- ') && l !== '--- /dev/null') return name(l).replace(/^a\//, '');
  // No hunks (binary, mode-only): `diff --git a/P b/P` with both halves equal.
  const rest = (lines[0] ?? '').slice('diff --git '.length);
  if (rest.startsWith('"')) {
    const m = /^"(?:[^"\\]|\\.)*" "((?:[^"\\]|\\.)*)"$/.exec(rest);
    if (m) return unquotePath(`"${m[1]}"`).replace(/^b\//, '');
  }
  const half = (rest.length - 1) / 2;
  return rest.slice(half + 1).replace(/^b\//, '');
}

/** A unified diff split into one section per file, each with the path it is about. */
export function splitPatch(diff: string): { path: string; diff: string }[] {
  const out: { path: string; diff: string }[] = [];
  const starts: number[] = [];
  const re = /^diff --git /gm;
  for (let m = re.exec(diff); m; m = re.exec(diff)) starts.push(m.index);
  starts.forEach((start, i) => {
    const section = diff.slice(start, starts[i + 1] ?? diff.length);
    out.push({ path: sectionPath(section), diff: section });
  });
  return out;
}

export interface PatchBounds {
  /** Most characters of one file's diff. */
  perFile: number;
  /** Most characters of all the page's diffs together. */
  total: number;
}

/** The text up to the last line end within `max` characters. */
export function cutAtLine(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf('\n', max - 1);
  return text.slice(0, cut > 0 ? cut + 1 : max);
}

/**
 * Cuts each file's diff at a line boundary within `perFile`; a file whose (cut) diff no longer fits
 * in `total` is left without one. Returns the patches and a note for what is missing.
 */
export function boundPatches(
  sections: { path: string; diff: string }[],
  bounds: PatchBounds,
): { patches: FilePatch[]; omitted: string[] } {
  const patches: FilePatch[] = [];
  const omitted: string[] = [];
  let spent = 0;
  for (const s of sections) {
    const text = s.diff.length <= bounds.perFile ? s.diff : cutAtLine(s.diff, bounds.perFile);
    if (spent + text.length > bounds.total) {
      omitted.push(s.path);
      continue;
    }
    patches.push({ path: s.path, diff: text, truncated: text.length < s.diff.length });
    spent += text.length;
  }
  return { patches, omitted };
}
