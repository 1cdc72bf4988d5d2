import { describe, expect, it } from 'vitest';
import { rollUp, type SessionAttention } from '../../../../shared/attention';
import type { AppStatus } from '../../../../shared/contract';
import type { PermissionRequest } from '../../../../shared/contract/permissions';
import { needsYouAction, needsYouItems } from './needs-you';

const item = (id: string, level: SessionAttention['level'], reason: string): SessionAttention => ({
  sessionId: id,
  sessionName: id,
  workspaceName: 'w',
  level,
  reason,
  since: '2026-01-01T00:00:00.000Z',
});
const request = (sessionId: string): PermissionRequest => ({
  id: `r-${sessionId}`,
  sessionId,
  workspaceId: 'ws',
  toolName: 'Bash',
  agent: 'claude',
  unanswered: 'stays_in_terminal',
  toolInput: { command: 'true' },
  askedAt: '2026-01-01T00:00:01.000Z',
  expiresAt: '2026-01-01T00:02:01.000Z',
});
const app = (vault: AppStatus['vault']['state']): AppStatus => ({
  vault: { state: vault, reason: 'The vault has not been set up yet.', mode: null },
  docker: { state: 'available', reason: 'ok' },
  nats: { state: 'running', reason: 'ok' },
});
const sessionIds = (items: ReturnType<typeof needsYouItems>) =>
  items.flatMap((i) => (i.kind === 'session' ? [[i.session.sessionId, i.session.reason]] : []));

describe('needsYouItems', () => {
  const fleet = rollUp([item('a', 'needs_you', 'Permission needed: Bash'), item('b', 'working', 'Working')], {
    memories: 0,
    skills: 0,
  });

  it('lists a session with a pending request even before its state says it waits', () => {
    expect(sessionIds(needsYouItems(app('unlocked'), fleet, [request('b')]))).toEqual([
      ['a', 'Permission needed: Bash'],
      ['b', 'Permission needed: Bash'],
    ]);
  });

  it('lists each session once, and no session it does not know', () => {
    expect(sessionIds(needsYouItems(app('unlocked'), fleet, [request('a'), request('a'), request('zzz')]))).toEqual([
      ['a', 'Permission needed: Bash'],
    ]);
  });

  it('puts a vault that is not set up first, with a link to the form that sets it up', () => {
    const [first] = needsYouItems(app('uninitialized'), fleet, []);
    expect(first).toMatchObject({ kind: 'vault', title: 'Vault not set up' });
    if (first?.kind !== 'vault') throw new Error('no vault item');
    expect(needsYouAction(first)).toEqual({ label: 'Set up the vault', href: '#/settings/vault' });
  });

  it('shows no app state on the phone, which cannot act on it', () => {
    expect(needsYouItems(null, fleet, []).map((i) => i.kind)).toEqual(['session']);
  });
});
