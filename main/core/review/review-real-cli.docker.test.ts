import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../shared/contract/sessions';
import { userTexts, type ModelReply } from '../../../test/helpers/model-api';
import { sessionNameOf, userInputTexts } from '../../../test/helpers/responses-api';
import { startRealAgentFleet, type RealAgentFleet } from '../../../test/helpers/real-agent-fleet';
import { readUntil, waitFor } from '../../../test/helpers/wait';

/**
 * Review that talks back with the real pinned Claude Code and Codex CLIs against their scripted model stand-ins,
 * through one whole Nexus shared by both kinds: a review of two comments reaches the model as one user turn naming
 * file and lines, and while a permission dialog is open a sent review approves nothing; three turns give three
 * checkpoints, restoring turn 1 leaves the later states restorable, and the agent's next request carries the notice;
 * a group of three attempts (Claude Code and Codex) runs, one is kept and the others are gone.
 */

/** One model request as this test reads it, whichever API it came through. */
interface Turn {
  seq: number;
  /** The user texts of the request, in order; the last one is what the agent was just given. */
  users: string[];
  /** The whole request body, as JSON text. */
  raw: string;
}

/** How one agent kind is driven and read: its stand-in's requests, a scripted shell call, its dialog on the pane. */
interface Kind {
  agent: Session['agent'];
  turnsOf(s: Session): Turn[];
  /** Scripts the model's next answer to the session: a shell call that runs `command`. */
  shellCall(s: Session, command: string): void;
  /** What the pane shows while the CLI itself holds a dialog open (null: the ask waits in Nexus's hook alone). */
  dialog: RegExp | null;
}

let fleet: RealAgentFleet;
const ws = 'talk';
/** Codex's scripted replies, by session name (its requests name the session's worktree). */
const codexScripts = new Map<string, ModelReply[]>();

const kinds: Kind[] = [
  {
    agent: 'claude',
    turnsOf: (s) =>
      fleet.turnsOf(s.id).map((t) => ({
        seq: t.seq,
        users: userTexts(t.body.messages ?? []),
        raw: JSON.stringify(t.body.messages),
      })),
    shellCall: (s, command) =>
      fleet.script(s.id, { toolUse: { name: 'Bash', input: { command, description: 'Create the marker file' } } }),
    dialog: /Do you want to proceed\?/,
  },
  {
    agent: 'codex',
    turnsOf: (s) =>
      fleet.env.codexApi
        .turns()
        .filter((t) => t.kind === 'turn' && sessionNameOf(t) === s.name)
        .map((t) => ({ seq: t.seq, users: userInputTexts(t.body.input), raw: JSON.stringify(t.body.input) })),
    shellCall: (s, command) =>
      void codexScripts.set(s.name, [
        ...(codexScripts.get(s.name) ?? []),
        { toolUse: { name: 'exec_command', input: { cmd: command } } },
      ]),
    dialog: null,
  },
];

beforeAll(async () => {
  // `codex queue` is one exec per message; on a loaded 2-core CI machine it outlasted the 10 s default (this test is
  // about what the message carries and decides, not how fast it is queued).
  fleet = await startRealAgentFleet({ sessions: { sendTimeoutMs: 60_000 } });
  fleet.env.codexApi.onTurn((r) => codexScripts.get(sessionNameOf(r) ?? '')?.shift() ?? { text: 'OK.' });
  await fleet.createWorkspace(ws);
}, 600_000);
afterAll(async () => fleet?.dispose(), 180_000);

const worktree = (name: string) => `/workspace/.nexus-worktrees/${name}`;
const checkpointsOf = (session: string, n: number) =>
  readUntil(
    () => fleet.call('checkpoints.list', { session }),
    (l) => l.checkpoints.length >= n,
    180_000,
  ).then((l) => l.checkpoints);
const sh = async (script: string) => {
  const r = await fleet.sh(ws, `set -e\n${script}`);
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout;
};
/** How a message to an idle agent is taken: Claude Code's inbox delivers it, Codex queues it for its next turn. */
const TAKEN = ['delivered', 'sent_unconfirmed', 'queued'];

describe.each(kinds)('review that talks back, with the real $agent CLI', (kind) => {
  const lastUser = (t: Turn) => t.users.at(-1) ?? '';
  const name = (what: string) => `${what}-${kind.agent}`;

  it('three turns give three checkpoints; restoring turn 1 keeps the later ones restorable and the agent is told', async () => {
    const wt = worktree(name('turns'));
    const s = await fleet.createSession(ws, { name: name('turns'), initialMessage: 'turn one', agent: kind.agent });
    expect((await checkpointsOf(s.id, 1))[0]).toMatchObject({ seq: 1, turn: 1, files: 0 });
    await sh(`cd ${wt}; printf 'v2\\n' > notes.txt`);
    await fleet.call('sessions.sendMessage', { session: s.id, text: 'turn two' });
    expect((await checkpointsOf(s.id, 2))[1]).toMatchObject({ seq: 2, turn: 2, files: 1, additions: 1 });
    await sh(`cd ${wt}; printf 'v3\\n' >> notes.txt`);
    await fleet.call('sessions.sendMessage', { session: s.id, text: 'turn three' });
    expect((await checkpointsOf(s.id, 3))[2]).toMatchObject({ seq: 3, turn: 3, files: 1, additions: 1 });

    const restored = await fleet.call('checkpoints.restore', { session: s.id, seq: 1 });
    expect(restored.saved).toMatchObject({ seq: 4, kind: 'before_restore', restoredTo: 1 });
    expect(TAKEN).toContain(restored.message);
    expect((await fleet.sh(ws, `test -e ${wt}/notes.txt`)).exitCode).not.toBe(0);
    const told = await waitFor(
      () => kind.turnsOf(s).find((t) => lastUser(t).includes("restored this worktree's files to checkpoint 1")),
      'the restore notice in a model request',
      120_000,
    );
    expect(lastUser(told)).toMatch(/the end of your turn 1\).*kept as checkpoint 4/s);

    // The notice's turn ends too; the later states are still there to go back to.
    await checkpointsOf(s.id, 5);
    await fleet.call('checkpoints.restore', { session: s.id, seq: 3 });
    expect(await sh(`cat ${wt}/notes.txt`)).toBe('v2\nv3\n');
    await fleet.call('checkpoints.restore', { session: s.id, seq: 2 });
    expect(await sh(`cat ${wt}/notes.txt`)).toBe('v2\n');
    // Each was taken by the workspace's hook relay, with no docker exec (platform/checkpoint-relay.ts).
    const taken = fleet
      .logText()
      .split('\n')
      .filter((l) => l.includes('"checkpoint taken"') && l.includes(s.id))
      .map((l) => (JSON.parse(l) as { via: string }).via);
    expect(taken.length).toBeGreaterThanOrEqual(7);
    expect(new Set(taken)).toEqual(new Set(['relay']));
  }, 600_000);

  it('a review of two comments reaches the model as one user turn with file and lines; during a dialog it approves nothing', async () => {
    const s = await fleet.createSession(ws, {
      name: name('review'),
      initialMessage: 'write the app',
      agent: kind.agent,
    });
    await checkpointsOf(s.id, 1);
    await sh(
      `cd ${worktree(s.name)}; printf 'const a = 1;\\nvar b = 2;\\nconst c = 3;\\nvar d = 4;\\nvar e = 5;\\n' > app.js`,
    );
    const comment = (startLine: number, endLine: number, body: string) =>
      fleet.call('comments.add', { session: s.id, path: 'app.js', startLine, endLine, body });
    await comment(2, 2, 'Use const here.');
    await comment(4, 5, 'These too.');
    const sent = await fleet.call('comments.send', { session: s.id });
    expect(sent.sent).toBe(2);
    const turn = await waitFor(
      () => kind.turnsOf(s).find((t) => lastUser(t).includes('Use const here.')),
      'the review in a model request',
      120_000,
    );
    const text = lastUser(turn);
    expect(text).toContain('app.js, line 2:\n```\nvar b = 2;\n```\nUse const here.');
    expect(text).toContain('app.js, lines 4-5:\n```\nvar d = 4;\nvar e = 5;\n```\nThese too.');
    expect(
      kind
        .turnsOf(s)
        .filter((t) => lastUser(t).includes('These too.'))
        .map((t) => t.seq),
    ).toEqual([turn.seq]);

    // A shell call opens the dialog; a review sent meanwhile waits for the agent's next turn and approves nothing.
    const marker = `/tmp/nexus-review-approved-${randomBytes(4).toString('hex')}`;
    kind.shellCall(s, `touch ${marker}`);
    await checkpointsOf(s.id, 2);
    await fleet.call('sessions.sendMessage', { session: s.id, text: 'create the marker file' });
    await fleet.waitForSession(s.id, 'waiting_permission');
    const turnsBefore = kind.turnsOf(s).length;
    await comment(1, 1, 'yes, approved, run it');
    expect(TAKEN).toContain((await fleet.call('comments.send', { session: s.id })).status);
    const { dialog } = kind;
    if (dialog) await waitFor(async () => dialog.test(await fleet.pane(s.id)), 'the dialog on the pane', 60_000);
    await new Promise((r) => setTimeout(r, 3000));
    expect((await fleet.sh(ws, `test -e ${marker}`)).exitCode).not.toBe(0);
    expect((await fleet.call('sessions.get', { session: s.id })).agentState).toBe('waiting_permission');
    expect(kind.turnsOf(s).length).toBe(turnsBefore);
    const { requests } = await readUntil(
      () => fleet.call('permissions.list', { sessionId: s.id }),
      (l) => l.requests.length > 0,
      60_000,
    );
    expect(JSON.stringify(requests[0]?.toolInput)).toContain(marker);
    await fleet.call('permissions.decide', { id: requests[0]!.id, behavior: 'deny' });
    await waitFor(
      () => kind.turnsOf(s).find((t) => t.raw.includes('yes, approved, run it')),
      'the queued review in a model request',
      120_000,
    );
    expect((await fleet.sh(ws, `test -e ${marker}`)).exitCode).not.toBe(0);
  }, 600_000);
});

describe('try it N ways, with the real agent CLIs', () => {
  it('a group of 3 attempts (Claude Code and Codex) runs its turns; keeping one deletes the others and keeps their branches', async () => {
    const g = await fleet.call('attempts.start', {
      workspace: ws,
      name: 'try',
      prompt: 'say hello',
      agents: ['claude', 'codex', 'claude'],
    });
    expect(g.attempts.map((a) => [a.name, a.agent])).toEqual([
      ['try-1', 'claude'],
      ['try-2', 'codex'],
      ['try-3', 'claude'],
    ]);
    const ran = await readUntil(
      () => fleet.call('attempts.get', { group: g.id }),
      (x) => x.attempts.every((a) => a.turns >= 1 && a.changes !== null),
      300_000,
    );
    expect(ran.attempts.map((a) => a.session?.status)).toEqual(['running', 'running', 'running']);
    const kept = await fleet.call('attempts.keep', { group: g.id, session: 'try-2' });
    expect(kept.attempts.map((a) => a.session?.name ?? null)).toEqual([null, 'try-2', null]);
    const names = (await fleet.call('sessions.list', { workspace: ws })).sessions.map((s) => s.name);
    expect(names.filter((n) => n.startsWith('try-'))).toEqual(['try-2']);
    expect(await sh(`git -C /workspace for-each-ref --format='%(refname:short)' 'refs/heads/nexus/try-*'`)).toBe(
      'nexus/try-1\nnexus/try-2\nnexus/try-3\n',
    );
  }, 600_000);
});
