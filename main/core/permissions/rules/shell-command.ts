import { posix } from 'node:path';

/**
 * A shell command as the rules read it: its simple commands (split at `&&`, `||`, `;`, `|`, `&` and new lines),
 * each as words with quotes removed, wrappers (`env X=1`, `command`, `nohup`, `time`, `exec`, `nice`) and git's
 * global options (`-C dir`, `-c k=v`) dropped so `git -C x push` reads as `git push`, and every path it names
 * (non-flag words and redirect targets) resolved against the directory it runs in (`cd` moves it).
 * Anything the rules cannot see through (`$(…)`, backquotes, `eval`, `sh -c`, `xargs`, here-docs) marks the part
 * opaque: no allow rule but `*` matches it, while ask and deny rules still read its text.
 */
export interface ShellPart {
  /** The words after wrappers, the first one a bare command name. */
  words: string[];
  /** `words` joined by single spaces: what prefixes and globs match. */
  text: string;
  /** Every path it names, absolute. */
  paths: string[];
  opaque: boolean;
}

const OPERATORS = ['&&', '||', ';;', ';', '|&', '|', '&', '\n'];
const WRAPPERS = new Set(['command', 'nohup', 'time', 'exec', 'builtin', 'stdbuf']);
const OPAQUE = new Set(['eval', 'xargs', 'source', '.', 'parallel', 'watch']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish']);
/** Words that name no file. */
const NOT_PATHS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/stdin', '-']);
const HOME = '/home/nexus';

interface Token {
  word: string;
  /** A shell operator (`&&`, `|`, …) rather than a word. */
  op?: boolean;
  /** A redirect target (`> file`). */
  redirect?: boolean;
  opaque?: boolean;
}

/** Splits a command line into words and operators, honouring quotes and backslashes. */
function tokenize(line: string): Token[] {
  const out: Token[] = [];
  let word = '';
  let has = false;
  let opaque = false;
  let redirect = false;
  const flush = (): void => {
    if (has) out.push({ word, ...(opaque ? { opaque } : {}), ...(redirect ? { redirect } : {}) });
    word = '';
    has = false;
    opaque = false;
    redirect = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\' && i + 1 < line.length) {
      if (line[i + 1] !== '\n') word += line[i + 1];
      has = true;
      i++;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end < 0 ? line.length : end);
      has = true;
      i = end < 0 ? line.length : end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < line.length) j++;
        if (line[j] === '`' || (line[j] === '$' && line[j + 1] === '(')) opaque = true;
      }
      word += line.slice(i + 1, j).replace(/\\(["\\$`])/g, '$1');
      has = true;
      i = j;
    } else if (c === '`' || (c === '$' && line[i + 1] === '(') || (c === '<' && line[i + 1] === '(')) {
      opaque = true;
      word += c;
      has = true;
    } else if (c === ' ' || c === '\t') {
      flush();
    } else if (c === '>' || c === '<') {
      // `2>`, `&>`, `>>`, `>|`: a redirect; its target is the next word (a `>&2` duplication names no file).
      const fd = /^\d+$|^&$/.test(word) && has;
      if (!fd) flush();
      else {
        word = '';
        has = false;
      }
      if (c === '<' && line[i + 1] === '<') {
        opaque = true; // a here-doc or here-string: its body is not a word the rules can read
        i++;
        flush();
        out.push({ word: '<<', opaque: true });
        continue;
      }
      while (line[i + 1] === '>' || line[i + 1] === '|') i++;
      if (line[i + 1] === '&') {
        i++;
        while (/[0-9-]/.test(line[i + 1] ?? '')) i++;
        continue;
      }
      redirect = true;
    } else {
      const op = OPERATORS.find((o) => line.startsWith(o, i));
      if (op) {
        flush();
        out.push({ word: op, op: true });
        i += op.length - 1;
      } else {
        word += c;
        has = true;
      }
    }
  }
  flush();
  return out;
}

/** Resolves a word naming a path against `cwd` (`~` is the worker user's home). */
export function resolvePath(word: string, cwd: string): string {
  const w = word === '~' ? HOME : word.startsWith('~/') ? `${HOME}${word.slice(1)}` : word;
  return posix.resolve(cwd, w);
}

/** Drops env assignments and wrapper commands in front, and git's global options. */
function commandWords(words: string[]): { words: string[]; opaque: boolean; dirs: string[] } {
  let i = 0;
  const dirs: string[] = [];
  for (;;) {
    const w = words[i];
    if (w === undefined) break;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) i++;
    else if (w === 'env' && words.slice(i + 1).some((x) => !x.startsWith('-') && !x.includes('='))) {
      // `env X=1 cmd` runs cmd; a bare `env` prints the environment and stays itself.
      i++;
      while (words[i]?.startsWith('-')) i++;
    } else if (WRAPPERS.has(posix.basename(w))) i++;
    else if (w === 'nice' || w === 'timeout') {
      i++;
      while (words[i]?.startsWith('-')) i++;
      if (w === 'timeout' || /^\d+$/.test(words[i] ?? '')) i++;
    } else break;
  }
  const rest = words.slice(i);
  if (rest[0]) rest[0] = posix.basename(rest[0]);
  const head = rest[0] ?? '';
  if (head === 'git') {
    const out = ['git'];
    let j = 1;
    while (j < rest.length && rest[j]!.startsWith('-')) {
      const o = rest[j]!;
      if (o === '-C' || o === '-c' || o === '--git-dir' || o === '--work-tree' || o === '--namespace') {
        if (o === '-C') dirs.push(rest[j + 1] ?? '');
        j += 2;
      } else j++;
    }
    out.push(...rest.slice(j));
    return { words: out, opaque: false, dirs };
  }
  const opaque =
    OPAQUE.has(head) ||
    (SHELLS.has(head) && rest.includes('-c')) ||
    (head === 'find' && rest.some((w) => /^-(exec|execdir|ok|okdir)$/.test(w)));
  return { words: rest, opaque, dirs };
}

/** The simple commands of `line`, run from `worktree`. */
export function parseShell(line: string, worktree: string): ShellPart[] {
  const parts: ShellPart[] = [];
  let cwd = worktree;
  let tokens: Token[] = [];
  const end = (): void => {
    if (tokens.length === 0) return;
    const plain = tokens.filter((t) => !t.redirect).map((t) => t.word);
    const cmd = commandWords(plain);
    const opaque = cmd.opaque || tokens.some((t) => t.opaque);
    const paths: string[] = [];
    const add = (w: string): void => {
      if (!w || NOT_PATHS.has(w) || /^[a-z][a-z0-9+.-]*:\/\//i.test(w)) return;
      paths.push(resolvePath(w, cwd));
    };
    for (const t of tokens) if (t.redirect) add(t.word);
    for (const d of cmd.dirs) add(d);
    for (const w of cmd.words.slice(1)) {
      if (w.startsWith('-')) {
        const eq = w.indexOf('=');
        if (eq > 0 && w.slice(eq + 1).includes('/')) add(w.slice(eq + 1));
      } else add(w);
    }
    if (cmd.words[0] === 'cd') cwd = cmd.words[1] ? resolvePath(cmd.words[1], cwd) : HOME;
    parts.push({ words: cmd.words, text: cmd.words.join(' '), paths, opaque });
    tokens = [];
  };
  for (const t of tokenize(line)) {
    if (t.op) end();
    else tokens.push(t);
  }
  end();
  return parts;
}

/** Whether `path` is `root` or inside it. */
export const isInside = (path: string, root: string): boolean =>
  path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`);
