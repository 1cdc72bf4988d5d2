import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { Session } from '../../../../shared/contract/sessions';
import { useApi, useNexusEvent } from '../../api/context';
import { applySessionChange } from './session-list';

export const sessionsKey = ['sessions.list'] as const;

/** Every session, kept live by `sessions.changed` push events (no polling). */
export function useSessions() {
  const api = useApi();
  const client = useQueryClient();
  useNexusEvent('sessions.changed', (change) =>
    client.setQueryData<{ sessions: Session[] }>(sessionsKey, (old) =>
      old ? { sessions: applySessionChange(old.sessions, change) } : old,
    ),
  );
  return useQuery({ queryKey: sessionsKey, queryFn: () => api['sessions.list']({}) });
}
