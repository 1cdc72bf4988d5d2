import { describe, expect, it } from 'vitest';
import { rollUp, type SessionAttention } from './attention';
import type { AppStatus } from './contract/app';
import { needsYouLine, whatNeedsYou } from './needs-you';

const session = (id: string, level: SessionAttention['level'], reason: string, since = '2026-01-01T00:00:00Z') => ({
  sessionId: id,
  sessionName: id,
  workspaceName: 'api',
  level,
  reason,
  since,
});
const calm: AppStatus = {
  vault: { state: 'unlocked', reason: 'Unlocked with the OS keychain.', mode: 'keychain' },
  docker: { state: 'available', reason: 'Docker 27' },
  nats: { state: 'running', reason: 'Listening' },
};
const noReview = { memories: 0, skills: 0 };
const fleetOf = (...items: SessionAttention[]) => rollUp(items, noReview);
const lines = (items: ReturnType<typeof whatNeedsYou>) => items.map((i) => needsYouLine(i));

describe('whatNeedsYou', () => {
  it('says nothing needs you when the app is up, no session waits and the review queue is empty', () => {
    expect(whatNeedsYou({ app: calm, fleet: fleetOf(session('a', 'working', 'Working')), review: noReview })).toEqual(
      [],
    );
  });

  it('lists a vault that is not set up, with core’s reason, before anything else', () => {
    const app: AppStatus = { ...calm, vault: { state: 'uninitialized', reason: 'Not set up yet.', mode: null } };
    const items = whatNeedsYou({
      app,
      fleet: fleetOf(session('a', 'needs_you', 'Permission needed: Bash')),
      review: noReview,
    });
    expect(lines(items)).toEqual(['Vault not set up: Not set up yet.', 'api · a — Permission needed: Bash']);
    expect(items[0]).toMatchObject({ kind: 'vault', state: 'uninitialized' });
  });

  it('lists a locked vault, Docker unavailable and NATS stopped, but not NATS still starting', () => {
    const app: AppStatus = {
      vault: { state: 'locked', reason: 'Sealed.', mode: 'passphrase' },
      docker: { state: 'unavailable', reason: 'No socket.' },
      nats: { state: 'stopped', reason: 'Stopped.' },
    };
    expect(lines(whatNeedsYou({ app, fleet: fleetOf(), review: noReview }))).toEqual([
      'Vault locked: Sealed.',
      'Docker unavailable: No socket.',
      'NATS stopped: Stopped.',
    ]);
    const starting = { ...calm, nats: { state: 'starting' as const, reason: 'Starting.' } };
    expect(whatNeedsYou({ app: starting, fleet: fleetOf(), review: noReview })).toEqual([]);
  });

  it('lists sessions oldest first, then a session whose permission request came before its hook event', () => {
    const fleet = fleetOf(
      session('late', 'needs_you', 'Waiting for your input', '2026-01-01T00:05:00Z'),
      session('early', 'needs_you', 'Session failed: boom', '2026-01-01T00:01:00Z'),
      session('busy', 'working', 'Working'),
    );
    const requests = [
      { sessionId: 'busy', toolName: 'Bash', askedAt: '2026-01-01T00:06:00Z' },
      { sessionId: 'busy', toolName: 'Edit', askedAt: '2026-01-01T00:07:00Z' },
      { sessionId: 'early', toolName: 'Bash', askedAt: '2026-01-01T00:02:00Z' },
      { sessionId: 'unknown', toolName: 'Bash', askedAt: '2026-01-01T00:02:00Z' },
    ];
    expect(lines(whatNeedsYou({ app: calm, fleet, requests, review: noReview }))).toEqual([
      'api · early — Session failed: boom',
      'api · late — Waiting for your input',
      'api · busy — Permission needed: Bash',
    ]);
  });

  it('lists the review queue last, once, while something waits there', () => {
    const items = whatNeedsYou({ app: calm, fleet: fleetOf(), review: { memories: 2, skills: 1 } });
    expect(lines(items)).toEqual(['Review: 2 memories, 1 skill waiting']);
    expect(lines(whatNeedsYou({ app: calm, fleet: fleetOf(), review: { memories: 1, skills: 0 } }))).toEqual([
      'Review: 1 memory, 0 skills waiting',
    ]);
  });

  it('leaves out the app’s state where the surface cannot see it (the phone)', () => {
    const items = whatNeedsYou({ app: null, fleet: fleetOf(session('a', 'needs_you', 'Waiting')), review: noReview });
    expect(items.map((i) => i.kind)).toEqual(['session']);
  });
});
