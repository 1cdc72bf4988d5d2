import { NexusError } from '../../../../shared/errors';
import type { RuleTool } from '../../../../shared/contract/rules';
import { isInside, type ShellPart } from './shell-command';
import type { ToolCall } from './tool-call';

/**
 * One rule's pattern, compiled once (docs/permissions.md, "Patterns"). A pattern matches a call, or for shell
 * calls one of its simple commands (`part`): an ask or deny rule holds when it matches any part (or, for `re:`,
 * the command line as typed), an allow rule only when every part is matched by some allow rule.
 */
export interface Matcher {
  /** Matches the call (a shell call: its command line as a whole; only `re:` and `*` patterns do). */
  call(call: ToolCall): boolean;
  /** Matches one simple command of a shell call (false for other tools). */
  part(part: ShellPart, call: ToolCall): boolean;
  /** `*`: the one pattern that also allows a command the rules cannot see through (opaque). */
  wildcard?: boolean;
  /** shell: the command word (lower case) every part it matches starts with, so a rule set can index it. */
  head?: string;
}

const MAX_REGEX = 500;

/** A glob: `*` any run of characters but `/` in paths (anything in commands and names), `**` any run at all. */
export function globRegex(glob: string, pathLike: boolean): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (c === '*') re += pathLike ? '[^/]*' : '.*';
    else if (c === '?') re += pathLike ? '[^/]' : '.';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, pathLike ? '' : 'i');
}

/** A prefix of whole words: "git push" matches "git push origin main", not "git pushx". */
const prefixOf = (words: string[], part: ShellPart): boolean =>
  words.length <= part.words.length && words.every((w, i) => part.words[i] === w);

function regex(source: string): RegExp {
  if (source.length > MAX_REGEX) throw new NexusError('bad_request', 'A rule regex is limited to 500 characters.');
  try {
    return new RegExp(source, 'i');
  } catch {
    throw new NexusError('bad_request', `Not a valid regular expression: ${source}`);
  }
}

const NONE: Matcher = { call: () => false, part: () => false };

/** Compiles `pattern` for `tool`; throws bad_request for one that cannot match anything of that tool. */
export function compile(tool: RuleTool, pattern: string): Matcher {
  const p = pattern.trim();
  if (p === '*') {
    const mine = (c: ToolCall): boolean => tool === 'any' || c.tool === tool;
    return { call: mine, part: (_, c) => mine(c), wildcard: true };
  }
  if (p.startsWith('re:')) {
    const re = regex(p.slice(3));
    return {
      call: (c) => (tool === 'any' || c.tool === tool) && re.test(c.text),
      part: (part, c) => (tool === 'any' || c.tool === tool) && re.test(part.text),
    };
  }
  switch (tool) {
    case 'shell':
      return shellMatcher(p);
    case 'read':
    case 'edit': {
      const test = pathTest(p);
      return { ...NONE, call: (c) => c.tool === tool && c.paths.length > 0 && test(c.paths, c.worktree) };
    }
    case 'fetch': {
      const re = globRegex(p.toLowerCase(), false);
      return { ...NONE, call: (c) => c.tool === 'fetch' && c.host !== null && re.test(c.host) };
    }
    case 'mcp':
    case 'other': {
      const re = globRegex(p, false);
      return { ...NONE, call: (c) => c.tool === tool && re.test(c.toolName) };
    }
    case 'any':
      throw new NexusError('bad_request', 'A rule for any tool takes "*" or "re:<regex>".');
  }
}

/** read/edit: "inside" (every path in the worktree), "outside" (one is not), or a glob every path matches. */
function pathTest(p: string): (paths: string[], worktree: string) => boolean {
  if (p === 'inside') return (paths, wt) => paths.every((x) => isInside(x, wt));
  if (p === 'outside') return (paths, wt) => paths.some((x) => !isInside(x, wt));
  const re = globRegex(p, true);
  if (p.startsWith('/')) return (paths) => paths.every((x) => re.test(x));
  // A relative glob is relative to the worktree.
  return (paths, wt) => paths.every((x) => isInside(x, wt) && re.test(x.slice(wt.length + 1)));
}

/** shell: "inside:<prefix>", "outside:<prefix>", a glob (has `*` or `?`), or a word prefix. */
function shellMatcher(p: string): Matcher {
  const where = /^(inside|outside):\s*(.*)$/.exec(p);
  const rest = where ? where[2]!.trim() : p;
  let head: (part: ShellPart) => boolean;
  if (/[*?]/.test(rest)) {
    const re = globRegex(rest, false);
    head = (part) => re.test(part.text);
  } else {
    const words = rest.split(/\s+/).filter(Boolean);
    if (words.length === 0 && !where) throw new NexusError('bad_request', 'A shell rule needs a command.');
    head = (part) => prefixOf(words, part);
  }
  const place = where?.[1];
  const first = rest.split(/\s+/)[0] ?? '';
  const indexed = first !== '' && !/[*?]/.test(first) && (rest.includes(' ') || !/[*?]/.test(rest));
  return {
    ...(indexed ? { head: first.toLowerCase() } : {}),
    call: () => false,
    part: (part, c) =>
      c.tool === 'shell' &&
      head(part) &&
      (place === 'inside'
        ? part.paths.every((x) => isInside(x, c.worktree))
        : place === 'outside'
          ? part.paths.some((x) => !isInside(x, c.worktree))
          : true),
  };
}
