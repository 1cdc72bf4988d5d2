/**
 * An ACP permission ask as the one permission path reads it: a tool name and input in the words the approval rules
 * and the permission card already use (a shell call is `Bash {command}`, an edit `Edit {file_path}`, …), so the same
 * rules decide for every agent kind. ACP's tool call carries a kind (execute, edit, read, fetch, …), a title, the
 * agent's raw input and the files it touches.
 */
export interface AcpToolCall {
  title?: unknown;
  kind?: unknown;
  rawInput?: unknown;
  locations?: unknown;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

export function askedTool(call: AcpToolCall): { toolName: string; toolInput: Record<string, unknown> } {
  const raw = call.rawInput && typeof call.rawInput === 'object' ? (call.rawInput as Record<string, unknown>) : {};
  const title = str(call.title) ?? 'a tool call';
  const firstPath = Array.isArray(call.locations)
    ? str((call.locations[0] as { path?: unknown } | undefined)?.path)
    : undefined;
  const path = str(raw.file_path) ?? str(raw.path) ?? str(raw.absolute_path) ?? str(raw.filePath) ?? firstPath;
  switch (call.kind) {
    case 'execute':
      return { toolName: 'Bash', toolInput: { ...raw, command: str(raw.command) ?? str(raw.cmd) ?? title } };
    case 'edit':
    case 'delete':
    case 'move':
      return { toolName: 'Edit', toolInput: { ...raw, file_path: path ?? title } };
    case 'read':
      return { toolName: 'Read', toolInput: { ...raw, file_path: path ?? title } };
    case 'fetch':
      return { toolName: 'WebFetch', toolInput: { ...raw, url: str(raw.url) ?? title } };
    default:
      return { toolName: title.slice(0, 200), toolInput: raw };
  }
}
