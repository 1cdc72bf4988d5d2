import { posix } from 'node:path';
import { expandsUnseen, gitGlobalRuns, runsMore, runsThroughEnv } from './command-flags';

/**
 * A shell command as the rules read it: its simple commands (split at `&&`, `||`, `;`, `|`, `&` and new lines),
 * each as words with quotes removed, wrappers (`env X=1`, `command`, `nohup`, `time`, `exec`, `nice`) and git's
 * global options (`-C dir`, `-c k=v`) dropped so `git -C x push` reads as `git push`, and every path it names
 * (non-flag words and redirect targets) resolved against the directory it runs in (`cd` moves it).
 * Anything the rules cannot see through marks the part opaque: `$(…)`, `$VAR`, backquotes, `eval`, `sh -c`,
 * `xargs`, a here-doc whose body expands, brace lists, env assignments beyond the plain ones, `git -c`, flags that run
 * another program (command-flags.ts), anything after a `cd` they cannot follow. No allow rule but `*` matches an
 * opaque part, while ask and deny rules still read its text.
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
  /** Input, not a file or an argument: a here-string's word, a here-doc's place. */
  data?: boolean;
  opaque?: boolean;
}

/** `$name`, `${…}`, `$(…)`, `$'…'`, `$?`…: an expansion the rules cannot resolve (inside double quotes: not `$'`). */
const EXPANDS = /^[A-Za-z_{(0-9@*#?$!-]/;
/** A here-doc body line that expands (its delimiter unquoted). */
const BODY_EXPANDS = /\$[A-Za-z_{(0-9@*#?$!-]|`/;

interface HereDoc {
  delimiter: string;
  quoted: boolean;
  tabs: boolean;
  token: Token;
}

/** Splits a command line into words and operators, honouring quotes and backslashes. */
function tokenize(line: string): Token[] {
  const out: Token[] = [];
  let word = '';
  let has = false;
  let opaque = false;
  let redirect = false;
  let data = false;
  const hereDocs: HereDoc[] = [];
  const flush = (): void => {
    if (has)
      out.push({ word, ...(opaque ? { opaque } : {}), ...(redirect ? { redirect } : {}), ...(data ? { data } : {}) });
    word = '';
    has = false;
    opaque = false;
    redirect = false;
    data = false;
  };
  /** Reads the body of each here-doc begun on the line that ended at `i` (a new line). */
  const bodies = (i: number): number => {
    for (const h of hereDocs.splice(0)) {
      let found = false;
      while (i + 1 < line.length && !found) {
        const end = line.indexOf('\n', i + 1);
        const text = line.slice(i + 1, end < 0 ? line.length : end);
        i = end < 0 ? line.length : end;
        found = (h.tabs ? text.replace(/^\t+/, '') : text) === h.delimiter;
        if (!found && !h.quoted && BODY_EXPANDS.test(text)) h.token.opaque = true;
      }
      if (!found) h.token.opaque = true;
    }
    return i; // the new line that ends the last delimiter (the loop goes on after it), or the end
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
        if (line[j] === '`' || (line[j] === '$' && line[j + 1] !== "'" && EXPANDS.test(line[j + 1] ?? '')))
          opaque = true;
      }
      word += line.slice(i + 1, j).replace(/\\(["\\$`])/g, '$1');
      has = true;
      i = j;
    } else if (
      c === '`' ||
      (c === '$' && /^[A-Za-z_{(0-9@*#?$!'"-]/.test(line[i + 1] ?? '')) ||
      ((c === '<' || c === '>') && line[i + 1] === '(')
    ) {
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
      if (c === '<' && line[i + 1] === '<' && line[i + 2] === '<') {
        i += 2; // a here-string: its word is input, not a file
        data = true;
        continue;
      }
      if (c === '<' && line[i + 1] === '<') {
        // A here-doc: its body is input, read at the line's end; an unquoted delimiter lets the body expand.
        i++;
        const tabs = line[i + 1] === '-';
        if (tabs) i++;
        while (line[i + 1] === ' ' || line[i + 1] === '\t') i++;
        const m = /^(['"]?)([^\s'";&|<>()]+)\1/.exec(line.slice(i + 1));
        const token: Token = { word: '', data: true, ...(m ? {} : { opaque: true }) };
        out.push(token);
        if (m) {
          hereDocs.push({ delimiter: m[2]!, quoted: m[1] !== '', tabs, token });
          i += m[0].length;
        }
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
        if (op === '\n' && hereDocs.length) i = bodies(i);
      } else {
        word += c;
        has = true;
      }
    }
  }
  flush();
  for (const h of hereDocs) h.token.opaque = true; // a here-doc whose body never came
  return out;
}

/** Resolves a word naming a path against `cwd` (`~` is the worker user's home). */
export function resolvePath(word: string, cwd: string): string {
  const w = word === '~' ? HOME : word.startsWith('~/') ? `${HOME}${word.slice(1)}` : word;
  return posix.resolve(cwd, w);
}

/** Drops env assignments and wrapper commands in front, and git's global options. */
function commandWords(words: string[]): { words: string[]; program: string; opaque: boolean; dirs: string[] } {
  let i = 0;
  let opaque = false;
  const dirs: string[] = [];
  for (;;) {
    const w = words[i];
    if (w === undefined) break;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) {
      opaque ||= runsThroughEnv(w);
      i++;
    } else if (w === 'env' && words.slice(i + 1).some((x) => !x.startsWith('-') && !x.includes('='))) {
      // `env X=1 cmd` runs cmd; a bare `env` prints the environment and stays itself; `env -S …` splits a string.
      i++;
      while (words[i]?.startsWith('-')) {
        opaque = true;
        i++;
      }
    } else if (WRAPPERS.has(posix.basename(w))) i++;
    else if (w === 'nice' || w === 'timeout') {
      i++;
      while (words[i]?.startsWith('-')) i++;
      if (w === 'timeout' || /^\d+$/.test(words[i] ?? '')) i++;
    } else break;
  }
  const rest = words.slice(i);
  const program = rest[0] ?? '';
  if (rest[0]) rest[0] = posix.basename(rest[0]);
  const head = rest[0] ?? '';
  if (head === 'git') {
    const out = ['git'];
    let j = 1;
    while (j < rest.length && rest[j]!.startsWith('-')) {
      const o = rest[j]!;
      // `-c core.pager=…`, `--exec-path`, `--git-dir`: git then runs or reads what the option says.
      opaque ||= gitGlobalRuns(o);
      if (o === '-C' || o === '-c' || o === '--git-dir' || o === '--work-tree' || o === '--namespace') {
        if (o === '-C') dirs.push(rest[j + 1] ?? '');
        j += 2;
      } else j++;
    }
    out.push(...rest.slice(j));
    return { words: out, program, opaque: opaque || runsMore(out), dirs };
  }
  opaque ||= OPAQUE.has(head) || (SHELLS.has(head) && rest.includes('-c')) || runsMore(rest);
  return { words: rest, program, opaque, dirs };
}

/** The path a flag names: `--out=dir/x`, or a short flag's attached value (`-o/tmp/x`, `-I../inc`). */
function flagPath(flag: string): string | null {
  const eq = flag.indexOf('=');
  const value = eq > 0 ? flag.slice(eq + 1) : /^-[^-]/.test(flag) ? flag.slice(2) : '';
  return value.includes('/') || value === '..' || value.startsWith('~') ? value : null;
}

/** The simple commands of `line`, run from `start` (the worktree, or the directory the call names) in `worktree`. */
export function parseShell(line: string, worktree: string, start = worktree): ShellPart[] {
  const parts: ShellPart[] = [];
  /** null: a `cd` the rules cannot follow (`cd -`, `cd $X`) left the directory unknown. */
  let cwd: string | null = start;
  let tokens: Token[] = [];
  const end = (): void => {
    if (tokens.length === 0) return;
    const plain = tokens.filter((t) => !t.redirect && !t.data).map((t) => t.word);
    const cmd = commandWords(plain);
    const here = cwd ?? worktree;
    let opaque = cmd.opaque || cwd === null || tokens.some((t) => t.opaque);
    // The directory it runs in is one it reads (`ls` with no argument lists it).
    const paths: string[] = [here];
    const add = (w: string): void => {
      if (!w || NOT_PATHS.has(w) || /^[a-z][a-z0-9+.-]*:\/\//i.test(w)) return;
      opaque ||= expandsUnseen(w);
      paths.push(resolvePath(w, here));
    };
    for (const t of tokens) if (t.redirect) add(t.word);
    // A program named by its path is a file too (`/tmp/x/cat` is not the system's cat).
    if (cmd.program.includes('/')) add(cmd.program);
    for (const d of cmd.dirs) add(d);
    for (const w of cmd.words.slice(1)) {
      if (!w.startsWith('-')) add(w);
      else if (flagPath(w) !== null) add(flagPath(w)!);
    }
    if (cmd.words[0] === 'cd') {
      const to = cmd.words[1];
      cwd = opaque || to === '-' || cwd === null ? null : to ? resolvePath(to, cwd) : HOME;
    }
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
