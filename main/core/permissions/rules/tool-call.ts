import type { RuleTool } from '../../../../shared/contract/rules';
import { parseShell, resolvePath, type ShellPart } from './shell-command';

/**
 * A permission request as the rules see it, whatever agent kind asked: the agents' tool names (Bash, Read, Edit,
 * WebFetch, mcp__server__tool, apply_patch, web_search, thread and agent tools; an ACP kind's call is read into these
 * by agents/acp/asked-tool.ts) land in the same few kinds. A tool this table does not know is `other`: only a rule
 * naming it (or `*`) decides it.
 */
export interface ToolCall {
  tool: Exclude<RuleTool, 'any'>;
  toolName: string;
  /** The session's worktree in its container (relative paths are inside it). */
  worktree: string;
  /** shell: the command as asked; fetch: the URL or query; others: the main path or the tool name. */
  text: string;
  /** shell: its simple commands. */
  parts: ShellPart[];
  /** read/edit: the paths it touches, absolute. */
  paths: string[];
  /** fetch: the host (lower case); a web search has none. */
  host: string | null;
}

const SHELL = new Set(['Bash', 'bash', 'shell', 'exec_command', 'local_shell', 'container.exec', 'unified_exec']);
const READ = new Set(['Read', 'Glob', 'Grep', 'LS', 'NotebookRead', 'view_image', 'read_file', 'list_dir']);
const EDIT = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit', 'apply_patch', 'write_file']);
const FETCH = new Set(['WebFetch', 'WebSearch', 'web_search', 'web_fetch']);

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const field = (input: unknown, ...names: string[]): string | null => {
  if (!input || typeof input !== 'object') return null;
  for (const n of names) {
    const v = (input as Record<string, unknown>)[n];
    if (typeof v === 'string') return v;
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return (v as string[]).join(' ');
  }
  return null;
};

/** The paths an apply_patch body adds, updates, deletes or moves to. */
function patchPaths(patch: string): string[] {
  return [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm)].map((m) =>
    (m[1] ?? m[2] ?? '').trim(),
  );
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/** Reads one permission request (tool name and its raw input) run in `worktree`. */
export function toolCallOf(toolName: string, input: unknown, worktree: string): ToolCall {
  const base = { toolName, worktree, parts: [], paths: [], host: null };
  if (/^mcp__/.test(toolName)) return { ...base, tool: 'mcp', text: toolName };
  if (SHELL.has(toolName)) {
    const command = field(input, 'command', 'cmd') ?? str(input) ?? '';
    // An exec tool's call, and an ACP agent's, may name the directory it runs in.
    const dir = field(input, 'workdir', 'cwd');
    const start = dir ? resolvePath(dir, worktree) : worktree;
    return { ...base, tool: 'shell', text: command, parts: parseShell(command, worktree, start) };
  }
  if (FETCH.has(toolName)) {
    const url = field(input, 'url');
    const text = url ?? field(input, 'query', 'q') ?? '';
    return { ...base, tool: 'fetch', text, host: url ? hostOf(url) : null };
  }
  if (READ.has(toolName) || EDIT.has(toolName)) {
    const patch = toolName === 'apply_patch' ? (field(input, 'input', 'patch', 'command') ?? str(input) ?? '') : null;
    const named = patch !== null ? patchPaths(patch) : [field(input, 'file_path', 'notebook_path', 'path') ?? '.'];
    const paths = named.map((p) => resolvePath(p, worktree));
    return { ...base, tool: READ.has(toolName) ? 'read' : 'edit', text: paths.join(' '), paths };
  }
  return { ...base, tool: 'other', text: toolName };
}

/** The call in one line, for a decision's record and the card (at most 200 characters). */
export function summaryOf(call: ToolCall): string {
  const s = call.tool === 'other' || call.tool === 'mcp' ? call.toolName : `${call.toolName} ${call.text}`;
  return s.length > 200 ? `${s.slice(0, 199)}…` : s;
}
