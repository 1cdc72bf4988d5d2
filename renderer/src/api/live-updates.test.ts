import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import type { EventMessage, Progress, Workspace } from '../../../shared/contract';
import { applyEvent } from './live-updates';
import { liveKey, opKey } from './query-keys';

const workspace = (id: string, name: string): Workspace => ({ id, name }) as unknown as Workspace;
const event = (name: string, payload: unknown): EventMessage => ({ name, payload }) as EventMessage;

describe('push events applied to the query cache', () => {
  it('adds a workspace created elsewhere to the cached list every picker reads', () => {
    const client = new QueryClient();
    client.setQueryData(opKey('workspaces.list'), { workspaces: [workspace('w1', 'api')] });
    applyEvent(client, event('workspaces.changed', { workspace: workspace('w2', 'web') }));
    const cached = client.getQueryData<{ workspaces: Workspace[] }>(['workspaces.list']);
    expect(cached?.workspaces.map((w) => w.name)).toEqual(['api', 'web']);
    applyEvent(client, event('workspaces.changed', { workspace: null, removedId: 'w1' }));
    expect(client.getQueryData<{ workspaces: Workspace[] }>(['workspaces.list'])?.workspaces.map((w) => w.id)).toEqual([
      'w2',
    ]);
  });

  it('keeps the progress of each workspace by the id the event carries', () => {
    const client = new QueryClient();
    const step: Progress = { id: 'op-1', workspaceId: 'w1', label: 'Create api', step: 'Cloning', done: false };
    applyEvent(client, event('progress', step));
    applyEvent(client, event('progress', { ...step, workspaceId: undefined, id: 'workspace:w9:create' }));
    expect(client.getQueryData(liveKey.workspaceProgress)).toEqual({ w1: step });
  });

  it("marks every page of one session's diff stale, and no other session's", () => {
    const client = new QueryClient();
    client.setQueryData(opKey('sessions.diff', { session: 's1', offset: 0, limit: 50 }), { page: 1 });
    client.setQueryData(opKey('sessions.diff', { session: 's1', file: 'a.ts' }), { page: 2 });
    client.setQueryData(opKey('sessions.diff', { session: 's2', offset: 0, limit: 50 }), { page: 3 });
    applyEvent(client, event('sessions.diffChanged', { sessionId: 's1', summary: {} }));
    const stale = client
      .getQueryCache()
      .getAll()
      .filter((q) => q.state.isInvalidated)
      .map((q) => q.queryKey);
    expect(stale).toEqual([
      ['sessions.diff', { session: 's1', offset: 0, limit: 50 }],
      ['sessions.diff', { session: 's1', file: 'a.ts' }],
    ]);
  });

  it('leaves a list alone that nothing has fetched yet', () => {
    const client = new QueryClient();
    applyEvent(client, event('sessions.changed', { session: null, removedId: 's1' }));
    expect(client.getQueryData(opKey('sessions.list'))).toBeUndefined();
  });
});
