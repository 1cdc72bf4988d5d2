import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Session } from '../../../shared/contract/sessions';
import { contractSession } from '../../../test/helpers/contract-session';
import { EventBus } from '../events';
import { createLogger } from '../log';
import { Redactor } from '../redact';
import { resumeDecision, UsageLimits, type LimitedView } from './usage-limit';

const T0 = Date.parse('2026-12-06T01:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe('the resume decision at a usage limit’s reset', () => {
  const limitedAt = iso(T0);
  const view = (v: Partial<LimitedView>): LimitedView => ({
    status: 'running',
    agentState: 'working',
    agentStateAt: iso(T0 - 5000),
    limitedAt,
    endedTurn: false,
    ...v,
  });

  it('resumes a session whose turn ended after the 429 (its CLI gave up)', () => {
    expect(resumeDecision(view({ agentState: 'idle', agentStateAt: iso(T0 + 10) }))).toBe('resume');
    expect(resumeDecision(view({ agentState: 'waiting_input', agentStateAt: iso(T0 + 10) }))).toBe('resume');
    // Codex's usage limit ends its turn with no hook: its state still says working.
    expect(resumeDecision(view({ agentState: 'working', endedTurn: true }))).toBe('resume');
  });

  it('sends nothing while the CLI still holds the turn (its own retry would be a second turn)', () => {
    expect(resumeDecision(view({ agentState: 'working' }))).toBe('wait');
    expect(resumeDecision(view({ agentState: 'waiting_permission', agentStateAt: iso(T0 + 10) }))).toBe('wait');
  });

  it('drops a session gone, stopped, exited, or idle since before the 429 (a side request)', () => {
    expect(resumeDecision(null)).toBe('drop');
    expect(resumeDecision(view({ status: 'exited', agentState: 'idle', agentStateAt: iso(T0 + 10) }))).toBe('drop');
    expect(resumeDecision(view({ status: 'error' }))).toBe('drop');
    expect(resumeDecision(view({ agentState: 'exited', agentStateAt: iso(T0 + 10) }))).toBe('drop');
    expect(resumeDecision(view({ agentState: 'idle', agentStateAt: iso(T0 - 1) }))).toBe('drop');
    expect(resumeDecision(view({ status: 'exited', endedTurn: true }))).toBe('drop');
  });
});

type Row = Session & { limitedAt: string | null; endedTurn: boolean };

describe('usage limits: marked, cleared, resumed at the reset', () => {
  let events: EventBus;
  let rows: Map<string, Row>;
  let resumed: string[];
  let limits: UsageLimits;

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T0 });
    const redactor = new Redactor();
    events = new EventBus(redactor);
    rows = new Map();
    resumed = [];
    limits = new UsageLimits({
      mark: (id, limit) => {
        const row = rows.get(id);
        if (row)
          change(id, {
            limitedUntil: limit?.until ?? null,
            limitedAt: limit?.at ?? null,
            endedTurn: limit?.endedTurn ?? false,
          });
      },
      view: (id) => {
        const r = rows.get(id);
        return r?.limitedAt ? { ...r, limitedAt: r.limitedAt } : null;
      },
      resume: async (id) => void resumed.push(id),
      events,
      log: createLogger({ redactor, stderr: false }),
    });
    limits.follow();
  });
  afterEach(() => {
    limits.dispose();
    vi.useRealTimers();
  });

  /** A session's row changes, and the bus says so (as SessionUpdates.patch does). */
  function change(id: string, patch: Partial<Row>) {
    const row = { ...rows.get(id)!, ...patch };
    rows.set(id, row);
    const { limitedAt: _at, endedTurn: _ended, ...session } = row;
    events.emit('sessions.changed', { session });
  }
  function add(id: string, agentState: Session['agentState'] = 'working') {
    rows.set(id, {
      ...contractSession({ id, name: id, workspaceId: 'w', workspaceName: 'w' }),
      agentState,
      agentStateAt: iso(T0 - 1000),
      limitedAt: null,
      endedTurn: false,
    });
  }
  const hook = (id: string, agentState: Session['agentState']) =>
    change(id, { agentState, agentStateAt: new Date().toISOString() });

  it('a CLI that gave up is resumed once, at the reset, and the limit is cleared', async () => {
    add('a');
    limits.limited('a', new Date(T0 + 20_000));
    expect(rows.get('a')!.limitedUntil).toBe(iso(T0 + 20_000));
    await vi.advanceTimersByTimeAsync(1000);
    hook('a', 'idle'); // StopFailure: the turn ended with the 429
    await vi.advanceTimersByTimeAsync(18_999);
    expect(resumed).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(resumed).toEqual(['a']);
    expect(rows.get('a')!.limitedUntil).toBeNull();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(resumed).toEqual(['a']);
  });

  it('a CLI whose 429 ended its turn with no hook (Codex’s usage limit) is resumed at the reset', async () => {
    add('x');
    limits.limited('x', new Date(T0 + 20_000), true);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(resumed).toEqual(['x']);
    expect(rows.get('x')!.limitedUntil).toBeNull();
  });

  it('an answer before the reset (a side request under another limit) changes nothing: one resume, at the reset', async () => {
    add('y');
    limits.limited('y', new Date(T0 + 20_000), true);
    limits.answered('y');
    expect(resumed).toEqual([]);
    expect(rows.get('y')!.limitedUntil).toBe(iso(T0 + 20_000));
    await vi.advanceTimersByTimeAsync(20_000);
    expect(resumed).toEqual(['y']);
    limits.answered('y');
    await vi.advanceTimersByTimeAsync(30_000);
    expect(resumed).toEqual(['y']);
  });

  it('a CLI still retrying gets nothing; its answer clears the limit, and a turn that ends later is not resumed', async () => {
    add('b');
    limits.limited('b', new Date(T0 + 20_000));
    await vi.advanceTimersByTimeAsync(20_000);
    expect(resumed).toEqual([]);
    expect(rows.get('b')!.limitedUntil).toBe(iso(T0 + 20_000));
    limits.answered('b');
    expect(rows.get('b')!.limitedUntil).toBeNull();
    hook('b', 'idle');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(resumed).toEqual([]);
  });

  it('a CLI that was still retrying at the reset and gives up after it is resumed then', async () => {
    add('c');
    limits.limited('c', new Date(T0 + 20_000));
    await vi.advanceTimersByTimeAsync(25_000);
    expect(resumed).toEqual([]);
    hook('c', 'idle');
    expect(resumed).toEqual(['c']);
  });

  it('a later 429 moves the reset; the earlier timer is gone', async () => {
    add('d');
    limits.limited('d', new Date(T0 + 20_000));
    hook('d', 'idle');
    limits.limited('d', new Date(T0 + 40_000));
    await vi.advanceTimersByTimeAsync(30_000);
    expect(resumed).toEqual([]);
    hook('d', 'idle');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(resumed).toEqual(['d']);
  });

  it('a session deleted, stopped or exited meanwhile is not resumed', async () => {
    for (const id of ['gone', 'stopped', 'exited']) {
      add(id);
      limits.limited(id, new Date(T0 + 20_000));
      hook(id, 'idle');
    }
    rows.delete('gone');
    events.emit('sessions.changed', { session: null, removedId: 'gone' });
    expect(limits.has('gone')).toBe(false);
    change('stopped', { status: 'exited' });
    hook('exited', 'exited');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(resumed).toEqual([]);
    expect(rows.get('stopped')!.limitedUntil).toBeNull();
  });

  it('a restarted core re-arms the saved limits: a reset already past is looked at at once', async () => {
    add('e', 'idle');
    add('f', 'idle');
    rows.set('e', { ...rows.get('e')!, limitedUntil: iso(T0 - 5000), limitedAt: iso(T0 - 30_000) });
    rows.set('f', { ...rows.get('f')!, limitedUntil: iso(T0 + 5000), limitedAt: iso(T0 - 30_000) });
    limits.rearm([
      { sessionId: 'e', until: iso(T0 - 5000) },
      { sessionId: 'f', until: iso(T0 + 5000) },
    ]);
    await vi.advanceTimersByTimeAsync(0);
    expect(resumed).toEqual(['e']);
    await vi.advanceTimersByTimeAsync(5000);
    expect(resumed).toEqual(['e', 'f']);
  });

  it('dispose cancels every timer', async () => {
    add('g');
    limits.limited('g', new Date(T0 + 1000));
    hook('g', 'idle');
    limits.dispose();
    await vi.advanceTimersByTimeAsync(5000);
    expect(resumed).toEqual([]);
  });
});
