import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { Session } from '../../../../shared/contract/sessions';
import { useApi, useNexusEvent } from '../../api/context';

export const sessionsKey = ['sessions.list'] as const;

/** Every session, kept live by `sessions.changed` push events (no polling). */
export function useSessions() {
  const api = useApi();
  const client = useQueryClient();
  useNexusEvent('sessions.changed', ({ session, removedId }) =>
    client.setQueryData<{ sessions: Session[] }>(sessionsKey, (old) => {
      if (!old) return old;
      let list = old.sessions.filter((s) => s.id !== removedId);
      if (session) list = list.some((s) => s.id === session.id) ? list.map((s) => (s.id === session.id ? session : s)) : [...list, session];
      return { sessions: list };
    }),
  );
  return useQuery({ queryKey: sessionsKey, queryFn: () => api['sessions.list']({}) });
}

/** Sessions grouped by workspace name, workspaces in name order. */
export function byWorkspace(sessions: Session[]): [string, Session[]][] {
  const groups = new Map<string, Session[]>();
  for (const s of sessions) groups.set(s.workspaceName, [...(groups.get(s.workspaceName) ?? []), s]);
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b));
}
