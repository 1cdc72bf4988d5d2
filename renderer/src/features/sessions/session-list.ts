import type { Session } from '../../../../shared/contract/sessions';

/** Applies one `sessions.changed` event to the list: replace, append or remove. */
export function applySessionChange(
  list: Session[],
  change: { session: Session | null; removedId?: string | undefined },
): Session[] {
  let next = change.removedId ? list.filter((s) => s.id !== change.removedId) : list;
  const s = change.session;
  if (s) next = next.some((x) => x.id === s.id) ? next.map((x) => (x.id === s.id ? s : x)) : [...next, s];
  return next;
}

/** Sessions grouped by workspace name, workspaces in name order. */
export function byWorkspace(sessions: Session[]): [string, Session[]][] {
  const groups = new Map<string, Session[]>();
  for (const s of sessions) {
    const group = groups.get(s.workspaceName);
    if (group) group.push(s);
    else groups.set(s.workspaceName, [s]);
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b));
}

/** The leading groups that hold `rows` sessions (whole groups), and up to the selected session's group. */
export function groupsFor(groups: [string, Session[]][], rows: number, selected: string | null): [string, Session[]][] {
  let end = 0;
  for (let count = 0; end < groups.length && count < rows; end++) count += groups[end]?.[1].length ?? 0;
  if (selected) {
    const at = groups.findIndex(([, items]) => items.some((s) => s.id === selected));
    if (at >= end) end = at + 1;
  }
  return end === groups.length ? groups : groups.slice(0, end);
}
