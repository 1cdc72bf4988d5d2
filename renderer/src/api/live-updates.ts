import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { AppInfo, EventMessage, EventName, EventPayload, Progress, Workspace } from '../../../shared/contract';
import type { Session } from '../../../shared/contract/sessions';
import { applySessionChange } from '../features/sessions/session-list';
import { useApi } from './context';
import { liveKey, opKey } from './query-keys';

/** Replaces, appends or removes one item of a cached list by id. */
function applyChange<T extends { id: string }>(list: T[], item: T | null, removedId?: string): T[] {
  if (removedId) return list.filter((x) => x.id !== removedId);
  if (!item) return list;
  return list.some((x) => x.id === item.id) ? list.map((x) => (x.id === item.id ? item : x)) : [...list, item];
}

/** A push event, narrowed by its name. */
type Pushed = { [K in EventName]: { name: K; payload: EventPayload<K> } }[EventName];

const refresh = (client: QueryClient, queryKey: readonly unknown[]): void =>
  void client.invalidateQueries({ queryKey });

/**
 * What one push event does to the query cache: an event that carries the new state writes it (a
 * list is patched, not refetched); one that only says something changed marks the queries it
 * touches stale (those on screen refetch, the others when next shown). A cache without the list yet
 * is left alone: its first fetch reads the current state.
 */
export function applyEvent(client: QueryClient, message: EventMessage): void {
  const event = message as Pushed;
  switch (event.name) {
    case 'sessions.changed': {
      const change = event.payload;
      let moved = false;
      client.setQueryData<{ sessions: Session[] }>(opKey('sessions.list'), (old) => {
        const before = old?.sessions.find((s) => s.id === (change.session?.id ?? change.removedId));
        moved = before?.status !== change.session?.status;
        return old ? { sessions: applySessionChange(old.sessions, change) } : old;
      });
      // A session that came, went or started running: an attempt's compare may show it differently.
      if (moved) refresh(client, opKey('attempts.list'));
      const id = change.session?.id ?? change.removedId;
      if (id) refresh(client, opKey('sessions.pane', { session: id }));
      refresh(client, opKey('board.list'));
      return;
    }
    case 'sessions.diffChanged':
      // An attempt's diff stat may have moved too (the compare view reads it).
      refresh(client, opKey('attempts.list'));
      return refresh(client, opKey('sessions.diff', { session: event.payload.sessionId }));
    case 'workspaces.changed': {
      const { workspace, removedId } = event.payload;
      client.setQueryData<{ workspaces: Workspace[] }>(opKey('workspaces.list'), (old) =>
        old ? { workspaces: applyChange(old.workspaces, workspace, removedId) } : old,
      );
      return refresh(client, opKey('workspaces.orphans'));
    }
    case 'progress': {
      const p: Progress = event.payload;
      if (!p.workspaceId) return;
      const workspaceId = p.workspaceId;
      client.setQueryData<Record<string, Progress>>(liveKey.workspaceProgress, (old) => ({
        ...old,
        [workspaceId]: p,
      }));
      return;
    }
    case 'attention.changed':
      client.setQueryData(opKey('attention.get'), event.payload);
      return;
    case 'permissions.changed':
      client.setQueryData(opKey('permissions.list'), { requests: event.payload.requests });
      return;
    case 'board.changed':
      return refresh(client, opKey('board.list'));
    case 'review.changed':
      return refresh(client, opKey('review.list'));
    case 'vault.changed':
      client.setQueryData(opKey('vault.status'), event.payload);
      return;
    case 'secrets.changed':
      return refresh(client, opKey('secrets.list'));
    case 'tokens.changed':
      // Every delegated credential is a token, so a token change may be a delegation change.
      refresh(client, opKey('tokens.list'));
      return refresh(client, opKey('delegation.list'));
    case 'agent.changed':
      client.setQueryData(opKey('agent.get'), event.payload);
      return;
    case 'app.status': {
      const status = event.payload;
      client.setQueryData<AppInfo>(opKey('app.info'), (old) => (old ? { ...old, ...status } : old));
      return;
    }
    case 'engines.changed':
      return refresh(client, opKey('engines.list'));
    case 'sessions.transcriptChanged':
      return refresh(client, opKey('sessions.transcript', { session: event.payload.sessionId }));
    case 'checkpoints.changed':
      refresh(client, opKey('attempts.list'));
      return refresh(client, opKey('checkpoints.list', { session: event.payload.sessionId }));
    case 'previews.changed':
      return refresh(client, opKey('previews.screenshots', { session: event.payload.sessionId }));
    case 'comments.changed':
      return refresh(client, opKey('comments.list', { session: event.payload.sessionId }));
    case 'attempts.changed':
      return refresh(client, opKey('attempts.list'));
    case 'radar.changed':
      client.setQueryData(opKey('radar.get', { workspace: event.payload.workspaceId }), event.payload);
      return;
    case 'rules.changed':
      refresh(client, opKey('rules.list'));
      return refresh(client, opKey('rules.draft'));
    case 'rules.decided':
      return refresh(client, opKey('rules.decisions', { sessionId: event.payload.sessionId }));
    case 'sessions.pushProgress':
      // A step of one push: the push panel that started it shows it (PushPanel); nothing is cached.
      return;
  }
}

/**
 * The app's one subscription to push events, mounted once (App): every list in the cache stays
 * live on every page — the workspace picker of the session form as much as the Workspaces page.
 */
export function useLiveUpdates(): void {
  const api = useApi();
  const client = useQueryClient();
  useEffect(() => api.subscribe((event) => applyEvent(client, event)), [api, client]);
}
