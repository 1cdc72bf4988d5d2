import type { RuleTool } from '../../../../shared/contract/rules';
import { isInside } from './shell-command';
import type { ToolCall } from './tool-call';

export type Draft =
  { draft: { tool: RuleTool; pattern: string; text: string }; reason: null } | { draft: null; reason: string };

const no = (reason: string): Draft => ({ draft: null, reason });
const yes = (tool: RuleTool, pattern: string): Draft => ({
  draft: { tool, pattern, text: `allow ${tool} ${pattern}` },
  reason: null,
});

/**
 * The narrowest allow rule that matches a call as it was asked (the card shows it before a grant saves it): a shell
 * call's whole command as a word prefix (`inside:` when every path it names is in the worktree), a file's own path,
 * a fetch's host, a tool's own name. A call an ask rule asked about gets none: ask wins over allow, so a grant could
 * never take effect, and only "Allow once" is offered.
 */
export function draftRule(call: ToolCall, askedBy: string | null): Draft {
  if (askedBy) return no(`Always asked (${askedBy}): only "Allow once".`);
  switch (call.tool) {
    case 'shell': {
      if (call.parts.length !== 1)
        return no('A compound command: allow it once, or add a rule per command in Settings.');
      const part = call.parts[0]!;
      if (part.opaque) return no('The rules cannot see through this command ($(…), sh -c, eval): allow it once.');
      if (part.words.some((w) => /[*?]/.test(w) || /\s/.test(w))) return no('The command has quoted spaces or globs.');
      const inside = part.paths.every((p) => isInside(p, call.worktree));
      return yes('shell', `${inside ? 'inside:' : ''}${part.text}`);
    }
    case 'read':
    case 'edit': {
      if (call.paths.length !== 1 || /[*?]/.test(call.paths[0]!)) return no('The call names several paths or a glob.');
      const p = call.paths[0]!;
      return yes(call.tool, isInside(p, call.worktree) && p !== call.worktree ? p.slice(call.worktree.length + 1) : p);
    }
    case 'fetch':
      return call.host ? yes('fetch', call.host) : no('A web search names no host: allow it once.');
    case 'mcp':
    case 'other':
      return /[*?]/.test(call.toolName) ? no('The tool name has glob characters.') : yes(call.tool, call.toolName);
  }
}
