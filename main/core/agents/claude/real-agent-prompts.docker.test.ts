import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileCorpus } from '../../../../test/helpers/hostile-corpus';
import { inspectJson } from '../../../../test/helpers/docker';
import { userTexts } from '../../../../test/helpers/model-api';
import { startRealAgentFleet, type RealAgentFleet } from '../../../../test/helpers/real-agent-fleet';
import { waitFor } from '../../../../test/helpers/wait';

/**
 * The real pinned CLI through a whole Nexus on the default `nexus` bridge, against the model
 * stand-in: what the operator types reaches the model exactly, messages arrive as cross-session
 * messages, and the canary credential shows nowhere but the stand-in's x-api-key header.
 */
const HUNDRED_KB = Array.from({ length: 100_000 }, (_, i) => (i % 80 === 79 ? '\n' : 'abcdefgh"$`\\ '[i % 13])).join(
  '',
);
const PROMPTS = [...hostileCorpus, HUNDRED_KB];
/**
 * The CLI matches the first operand after `--` against its subcommand names, so a prompt that is a
 * bare name cannot reach it unchanged: Nexus appends a newline (launch.ts guardSubcommand). Every
 * other prompt arrives exactly as typed.
 */
const SUBCOMMAND_NAMES = new Set(['doctor', 'mcp', 'update']);
/** The CLI itself removes bidirectional-override controls from a prompt (measured on 2.1.332); Nexus passes them. */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;
const asTheModelSeesIt = (typed: string): string =>
  SUBCOMMAND_NAMES.has(typed) ? `${typed}\n` : typed.replace(BIDI_CONTROLS, '');

describe('the real agent CLI: prompts and messages', () => {
  let fleet: RealAgentFleet;
  const ws = 'prompts';

  beforeAll(async () => {
    fleet = await startRealAgentFleet();
    await fleet.createWorkspace(ws);
  }, 600_000);
  afterAll(async () => fleet?.dispose(), 180_000);

  const firstTurn = (session: string) => fleet.firstTurn(session);

  it('passes every prompt of the hostile corpus and a 100 KB one as the first user turn, byte-exact (a bare subcommand name with a newline)', async () => {
    const batch = 5;
    for (let i = 0; i < PROMPTS.length; i += batch) {
      const prompts = PROMPTS.slice(i, i + batch);
      const sessions = await Promise.all(
        prompts.map((p, j) => fleet.createSession(ws, { name: `p${i + j}`, initialMessage: p })),
      );
      for (const [j, s] of sessions.entries()) {
        const turn = await firstTurn(s.id);
        const typed = prompts[j]!;
        expect(userTexts(turn.body.messages ?? [])[0], `prompt ${i + j}`).toBe(asTheModelSeesIt(typed));
      }
      for (const s of sessions) await fleet.call('sessions.delete', { session: s.id, deleteBranch: true });
    }
  }, 1_200_000);

  it('delivers send_message as a cross-session message on the next turn', async () => {
    const s = await fleet.createSession(ws, { name: 'msg', initialMessage: 'wait for my note' });
    await fleet.waitForSession(s.id, (x) => x.agentState === 'idle' && fleet.turnsOf(s.id).length > 0);
    const note = 'the note: "quotes", $(subshell) and ünïcødé';
    const sent = await fleet.tool<{ status: string }>('send_message', { session: s.id, text: note });
    // 2.1.332 sends a receipt only for a message it holds, denies, drops or later releases: an
    // admitted message gets none, so Nexus says exactly that, never "delivered".
    expect(sent.status).toBe('sent_unconfirmed');
    const turn = await waitFor(
      () =>
        fleet.turnsOf(s.id).find((t) => JSON.stringify(t.body.messages).includes(JSON.stringify(note).slice(1, -1))),
      'the message in a model request',
      120_000,
    );
    // It reaches the model as another session's message, never as the operator's own words.
    const texts = JSON.stringify(turn.body.messages);
    expect(texts).toMatch(/another claude session|cross-session|peer/i);
    expect(userTexts(turn.body.messages ?? [])).not.toContain(note);
    expect(await fleet.pane(s.id)).toContain('Another Claude session sent a message');
  }, 600_000);

  it('delivers a message through the workspace’s hook relay, with no process started for it in the container', async () => {
    const s = await fleet.createSession(ws, { name: 'relayed', initialMessage: 'wait for my note' });
    await fleet.waitForSession(s.id, (x) => x.agentState === 'idle' && fleet.turnsOf(s.id).length > 0);
    // Without the one-shot helper the only way in is the resident relay (docs/sessions.md, "Messages").
    await fleet.sh(ws, 'mv /tmp/nexus-tools/nexus-inbox-send.cjs /tmp/nexus-tools/nexus-inbox-send.cjs.away');
    try {
      const note = 'relayed note: \'single\' "double" \\ back $HOME ünïcødé';
      const sent = await fleet.tool<{ status: string }>('send_message', { session: s.id, text: note });
      expect(sent.status).toBe('sent_unconfirmed');
      // The helper's path puts a missing helper back (inbox/inbox-helper.ts): still away, so it was never taken.
      expect((await fleet.sh(ws, 'test -e /tmp/nexus-tools/nexus-inbox-send.cjs || echo away')).stdout.trim()).toBe(
        'away',
      );
      await waitFor(
        () =>
          fleet.turnsOf(s.id).find((t) => JSON.stringify(t.body.messages).includes(JSON.stringify(note).slice(1, -1))),
        'the relayed message in a model request',
        120_000,
      );
    } finally {
      await fleet.sh(ws, 'mv /tmp/nexus-tools/nexus-inbox-send.cjs.away /tmp/nexus-tools/nexus-inbox-send.cjs');
    }
  }, 600_000);

  it('never shows the canary key in docker inspect, the log, events, panes or results', async () => {
    const { canary, api } = fleet.env;
    expect(api.sawCredential(canary)).toBe(true);
    const w = await fleet.call('workspaces.get', { workspace: ws });
    const { sessions } = await fleet.call('sessions.list', { workspace: ws });
    const panes = await Promise.all(sessions.map((s) => fleet.pane(s.id)));
    const proc = await fleet.sh(ws, 'for p in /proc/[0-9]*; do cat $p/cmdline $p/environ 2>/dev/null; echo; done');
    const results = JSON.stringify([
      w,
      sessions,
      await fleet.tool('get_nexus_info', {}),
      await fleet.tool('list_sessions', { workspace: ws }),
      await fleet.call('agent.get', {}),
      await fleet.call('secrets.list', {}),
    ]);
    const places = {
      inspect: inspectJson(w.containerId!),
      log: fleet.logText(),
      events: fleet.eventsText(),
      panes: panes.join('\n'),
      processes: proc.stdout,
      results,
    };
    expect(places.log.length).toBeGreaterThan(0);
    expect(proc.stdout).toContain('claude');
    for (const [where, text] of Object.entries(places)) expect(text.includes(canary), where).toBe(false);
  }, 120_000);
});
