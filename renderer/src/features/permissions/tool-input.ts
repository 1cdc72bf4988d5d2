/**
 * What the operator reads about a tool call before deciding: the one line that matters (the command,
 * the file, the address) and the whole input. Core has already redacted the input and cut it at
 * 8,000 characters (then it arrives as a string ending in "…").
 */
export interface ToolInputView {
  /** The command for Bash, the path for file tools, the URL for fetches; null when no one field says it. */
  headline: string | null;
  /** The whole input, pretty-printed. */
  detail: string;
}

const HEADLINE_FIELD: Record<string, string> = {
  Bash: 'command',
  Read: 'file_path',
  Write: 'file_path',
  Edit: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
  WebFetch: 'url',
  WebSearch: 'query',
};

export function viewToolInput(toolName: string, input: unknown): ToolInputView {
  if (typeof input === 'string') return { headline: null, detail: input };
  const detail = JSON.stringify(input, null, 2) ?? 'null';
  const field = HEADLINE_FIELD[toolName];
  const value =
    field && input !== null && typeof input === 'object' ? (input as Record<string, unknown>)[field] : undefined;
  return { headline: typeof value === 'string' && value ? value : null, detail };
}
