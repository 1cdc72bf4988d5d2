import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userTexts } from '../../../../test/helpers/model-api';
import { startRealAgentFleet, type RealAgentFleet } from '../../../../test/helpers/real-agent-fleet';
import { waitFor } from '../../../../test/helpers/wait';

/**
 * The real pinned CLI through a whole Nexus: a bypassPermissions workspace holds inbox messages
 * (and send_message says so), and a core restart with a session's agent gone relaunches it on the
 * same conversation without sending the initial message again.
 */
describe('the real agent CLI: held messages and resume', () => {
  let fleet: RealAgentFleet;

  beforeAll(async () => {
    fleet = await startRealAgentFleet();
  }, 600_000);
  afterAll(async () => fleet?.dispose(), 180_000);

  it('holds a message to a bypassPermissions session and send_message reports it held, not delivered', async () => {
    await fleet.createWorkspace('bypass', { bypass: true });
    const s = await fleet.createSession('bypass', { name: 'free', initialMessage: 'work without asking' });
    await fleet.waitForSession(s.id, (x) => x.agentState === 'idle' && fleet.turnsOf(s.id).length > 0);
    const text = 'a note from another session';
    const sent = await fleet.tool<{ status: string; note: string }>('send_message', { session: s.id, text });
    expect(sent.status).toBe('held');
    expect(sent.note).toMatch(/bypassPermissions/);
    const pane = await waitFor(async () => {
      const p = await fleet.pane(s.id);
      return /held/i.test(p) ? p : null;
    }, 'the hold notice on the pane');
    expect(pane).toMatch(/held/i);
    expect(fleet.turnsOf(s.id).some((t) => JSON.stringify(t.body.messages).includes(text))).toBe(false);
  }, 600_000);

  it('resumes the same conversation after a core restart, without repeating the initial message', async () => {
    await fleet.createWorkspace('resume');
    const first = 'the one and only first task';
    const s = await fleet.createSession('resume', { name: 'long', initialMessage: first });
    fleet.script(s.id, { text: 'First task done.' });
    await fleet.waitForSession(s.id, (x) => x.agentState === 'idle' && fleet.turnsOf(s.id).length > 0);
    const conversation = fleet.agentSessionId(s.id);

    // Core goes away; meanwhile the agent's window dies (as after a crash of the tmux server's child).
    const turnsBefore = fleet.env.api.turns().length;
    await fleet.restart(async () => {
      const killed = await fleet.sh('resume', 'tmux kill-window -t nexus:long');
      expect(killed.exitCode).toBe(0);
    });

    await waitFor(
      async () => {
        const r = await fleet.sh('resume', 'tmux list-windows -t nexus -F "#{window_name}"');
        return r.stdout.split('\n').includes('long');
      },
      'the relaunched window',
      120_000,
    );
    const back = await fleet.waitForSession(s.id, 'idle');
    expect(back.status).toBe('running');
    expect(fleet.agentSessionId(s.id)).toBe(conversation);

    // The next turn carries the old conversation: the first task once, its answer, then the new message.
    fleet.script(s.id, { text: 'Second task done.' });
    await fleet.tool('send_message', { session: s.id, text: 'now the second task' });
    const next = await waitFor(
      () =>
        fleet.env.api
          .turns()
          .slice(turnsBefore)
          .find((t) => JSON.stringify(t.body.messages).includes('now the second task')),
      'the turn after the restart',
      180_000,
    );
    const said = JSON.stringify(next.body.messages);
    expect(said).toContain('First task done.');
    expect(userTexts(next.body.messages ?? []).filter((t) => t === first)).toHaveLength(1);
    // No request after the restart started over with the initial message.
    const restarted = fleet.env.api
      .turns()
      .slice(turnsBefore)
      .filter((t) => userTexts(t.body.messages ?? []).at(-1) === first);
    expect(restarted).toEqual([]);
  }, 600_000);
});
