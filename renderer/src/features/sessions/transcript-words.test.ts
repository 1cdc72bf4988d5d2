import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import type { EventMessage } from '../../../../shared/contract';
import type { Session } from '../../../../shared/contract/sessions';
import type { TranscriptItem } from '../../../../shared/contract/transcript';
import { applyEvent } from '../../api/live-updates';
import { opKey } from '../../api/query-keys';
import { atBottom, inlineRequestIds, planStatus, toolKind, turnEndWords, turnRuns } from './transcript-words';

const at = '2026-12-05T21:00:00.000Z';

describe('the words and rules of the structured view', () => {
  it('answers inline only the permissions still pending that name their request', () => {
    const items: TranscriptItem[] = [
      { type: 'permission', id: 'a', requestId: 'r1', title: 'rm', outcome: 'pending', at },
      { type: 'permission', id: 'b', requestId: null, title: 'push', outcome: 'denied', at },
      { type: 'permission', id: 'c', requestId: null, title: 'curl', outcome: 'pending', at },
      { type: 'agent', id: 'd', text: 'ok', at },
    ];
    expect([...inlineRequestIds(items)]).toEqual(['r1']);
  });

  it('offers Stop turn while a turn runs (working or waiting on a permission), never on an idle or stopped session', () => {
    const s = (status: Session['status'], agentState: Session['agentState']) => ({ status, agentState }) as Session;
    expect(turnRuns(s('running', 'working'))).toBe(true);
    expect(turnRuns(s('running', 'waiting_permission'))).toBe(true);
    expect(turnRuns(s('running', 'idle'))).toBe(false);
    expect(turnRuns(s('exited', 'working'))).toBe(false);
  });

  it('follows the bottom within a few pixels of it, not once the operator scrolled further up', () => {
    expect(atBottom({ scrollTop: 600, scrollHeight: 1000, clientHeight: 400 })).toBe(true);
    expect(atBottom({ scrollTop: 580, scrollHeight: 1000, clientHeight: 400 })).toBe(true);
    expect(atBottom({ scrollTop: 500, scrollHeight: 1000, clientHeight: 400 })).toBe(false);
  });

  it('says every status and reason in words, an unknown one by its own name', () => {
    expect(planStatus('in_progress').words).toBe('in progress');
    expect(planStatus('blocked').words).toBe('blocked');
    expect(turnEndWords('cancelled')).toBe('Turn stopped');
    expect(turnEndWords('error')).toBe('Turn ended in an error');
    expect(turnEndWords('weird')).toBe('Turn ended (weird)');
    expect(toolKind('execute').label).toBe('Run');
    expect(toolKind('other').label).toBe('Tool');
    expect(toolKind('switch_mode').label).toBe('switch_mode');
  });

  it("marks one session's structured view stale on its transcriptChanged event, no other session's", () => {
    const client = new QueryClient();
    client.setQueryData(opKey('sessions.transcript', { session: 's1' }), { items: [] });
    client.setQueryData(opKey('sessions.transcript', { session: 's2' }), { items: [] });
    applyEvent(client, { name: 'sessions.transcriptChanged', payload: { sessionId: 's1' } } as EventMessage);
    const stale = client
      .getQueryCache()
      .getAll()
      .filter((q) => q.state.isInvalidated)
      .map((q) => q.queryKey);
    expect(stale).toEqual([['sessions.transcript', { session: 's1' }]]);
  });
});
