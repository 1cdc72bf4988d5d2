import { posix } from 'node:path';

/**
 * What a command's own words make it run or read beyond what its name says (docs/permissions.md, "How a request is
 * decided"). A simple command that does any of this is opaque to the rules: no allow rule but `*` matches it, while
 * ask and deny rules still read its text. Each entry is a way a read-only looking command runs another program.
 */

/** Environment variables that only change output or tracing; any other assignment in front may change what runs. */
const PLAIN_ENV = new Set([
  'CI',
  'FORCE_COLOR',
  'NO_COLOR',
  'NODE_ENV',
  'DEBUG',
  'RUST_BACKTRACE',
  'RUST_LOG',
  'TZ',
  'LANG',
  'LC_ALL',
  'TERM',
  'COLUMNS',
  'PYTHONDONTWRITEBYTECODE',
  'PYTHONUNBUFFERED',
]);

/** `NAME=value` in front of a command (or after `env`) with a name outside the plain list: PATH, LD_PRELOAD, GIT_*, … */
export const runsThroughEnv = (assignment: string): boolean => !PLAIN_ENV.has(assignment.split('=')[0]!);

/** git's global options that point it at other config, programs or repositories (`-c core.pager=…`, `--exec-path`). */
const GIT_GLOBAL = /^(-c|--config-env|--exec-path|--git-dir|--work-tree|--namespace|--super-prefix)(=|$)/;
export const gitGlobalRuns = (option: string): boolean => GIT_GLOBAL.test(option);

/** Per command word: flags whose value is a program it runs (or a script it reads as commands). */
const RUNS: Record<string, RegExp> = {
  find: /^-(exec|execdir|ok|okdir)$/,
  fd: /^(-x|-X|--exec|--exec-batch)(=|$)/,
  rg: /^(--pre|--hostname-bin)(=|$)/,
  sort: /^--compress-program(=|$)/,
  git: /^(--upload-pack|--receive-pack|--open-files-in-pager|-O|--ext-diff|--exec)(=|$)|^-O./,
  go: /^-(exec|toolexec|vettool)(=|$)/,
  cargo: /^--config(=|$)|^-Z$/,
  tree: /^--fromfile$/,
};

/** A sed script of print, delete and substitute commands only: no `e`, `w`, `r` (run a command, write or read a file). */
const SED_ADDRESS = String.raw`(\d+|\$|/(\\.|[^/\\])*/)`;
const SED_COMMAND = new RegExp(
  String.raw`^(${SED_ADDRESS}(,${SED_ADDRESS})?)?\s*([pdn=]|s(?<d>.)((?!\k<d>)(\\.|.))*\k<d>((?!\k<d>)(\\.|.))*\k<d>[gpiI0-9]*)$`,
);
const plainSed = (script: string): boolean =>
  script
    .split(/[;\n]/)
    .map((c) => c.trim())
    .filter(Boolean)
    .every((c) => SED_COMMAND.test(c));

/** sed: the scripts it runs (from `-e`, `--expression=` or its first operand); null when one comes from a file. */
function sedScripts(args: string[]): string[] | null {
  const scripts: string[] = [];
  let operand = true;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-f' || a.startsWith('--file') || (/^-[^-]/.test(a) && a.slice(1).includes('f'))) return null;
    if (a.startsWith('--expression=')) {
      scripts.push(a.slice(13));
      operand = false;
    } else if (a === '--expression' || (/^-[^-]/.test(a) && a.endsWith('e'))) {
      scripts.push(args[++i] ?? '');
      operand = false;
    } else if (!a.startsWith('-') && operand) {
      scripts.push(a);
      operand = false;
    }
  }
  return scripts;
}

/** Whether a simple command (wrappers dropped, first word its name) runs something its name does not say. */
export function runsMore(words: string[]): boolean {
  const head = words[0] ?? '';
  const args = words.slice(1);
  const runs = RUNS[head];
  if (runs && args.some((a) => runs.test(a))) return true;
  // pytest's debugger is a Python prompt: what an agent's stdin tool (write_stdin) types into it no gate sees.
  if (words.includes('pytest') && args.some((a) => /^--(pdb|trace|pdbcls)(=|$)/.test(a))) return true;
  if (head === 'sed') {
    const scripts = sedScripts(args);
    return scripts === null || scripts.length === 0 || !scripts.every(plainSed);
  }
  // make's NAME=value overrides the Makefile's variables (the commands its recipes run among them), --eval adds a
  // rule, and a second target is one no rule named (`make test deploy`).
  if (head === 'make')
    return (
      args.some((a) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(a) || a.startsWith('--eval')) ||
      args.filter((a) => !a.startsWith('-')).length > 1
    );
  return false;
}

/**
 * A word the shell would expand into something the rules cannot resolve: brace lists (`{/etc/passwd,x}`,
 * `{..,.}`), another user's home (`~root`, `~+`, `~-`), or a glob that may match `..` (`.*`).
 */
export function expandsUnseen(word: string): boolean {
  if (/\{[^}]*(,|\.\.)[^}]*\}/.test(word)) return true;
  if (/^~[^/]/.test(word)) return true;
  return (
    posix
      .normalize(word)
      .split('/')
      .some((c) => /^\.[*?[]/.test(c)) || /(^|\/)\.[*?[]/.test(word)
  );
}
