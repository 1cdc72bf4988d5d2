import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actorLabel } from '../../../shared/contract/platform';
import type { ModelReply, ModelRequest } from '../../../test/helpers/model-api';
import { startRealAgentFleet, type RealAgentFleet } from '../../../test/helpers/real-agent-fleet';
import { readUntil, waitFor } from '../../../test/helpers/wait';

/**
 * The real pinned CLI through a whole Nexus against the scripted model: the platform tools the
 * model can reach are exactly the ones its workspace's agent record allows; a scripted
 * task.delegate shows on the Board and "Start a session on it" runs one; with NATS stopped a
 * session still starts, without platform tools, and says why.
 */
/** Every mcp__nexus__* name the model can reach in a request: in `tools`, or listed as deferred for ToolSearch. */
const reachable = (req: ModelRequest): string[] =>
  [...new Set(JSON.stringify(req.body).match(/mcp__nexus__[a-z_]+/g) ?? [])].sort();

/** The CLI may send its first requests while MCP servers still start: is `nexus` among the "still connecting"? */
const connecting = (req: ModelRequest): boolean => {
  const text = JSON.stringify(req.body);
  const at = text.indexOf('MCP servers are still connecting');
  if (at < 0) return false;
  // "…are still connecting — … will appear shortly:\nnexus\nnexus-fleet\n\n…" (JSON-escaped newlines)
  const list = text.slice(at).split('\\n\\n')[0] ?? '';
  return list.split('\\n').slice(1).includes('nexus');
};
/**
 * The model's replies: "wait" (ending the turn) while nexus is still connecting (the CLI's first
 * request can beat the MCP handshake), then `steps` in order. See `nudge`.
 */
function afterConnected(...steps: ModelReply[]): ((req: ModelRequest) => ModelReply)[] {
  let i = 0;
  const next = (req: ModelRequest): ModelReply =>
    connecting(req) ? { text: 'Waiting for the tools.' } : (steps[i++] ?? { text: 'Done.' });
  return Array.from({ length: steps.length + 12 }, () => next);
}

describe('the real agent CLI: platform tools, gating and the board', () => {
  let fleet: RealAgentFleet;
  const ws = 'gate';

  beforeAll(async () => {
    fleet = await startRealAgentFleet();
    await fleet.createWorkspace(ws);
  }, 600_000);
  afterAll(async () => fleet?.dispose(), 180_000);

  /** Sends a message every few seconds until a model request of the session shows nexus connected. */
  const nudge = async (session: string): Promise<ModelRequest> => {
    for (let i = 0; i < 12; i++) {
      const ready = fleet.turnsOf(session).find((t) => !connecting(t));
      if (ready) return ready;
      await fleet.waitForSession(session, (x) => x.agentState === 'idle' && fleet.turnsOf(session).length > 0);
      await new Promise((r) => setTimeout(r, 5000));
      if (!fleet.turnsOf(session).find((t) => !connecting(t)))
        await fleet.call('sessions.sendMessage', { session, text: 'the tools should be there now' });
      await new Promise((r) => setTimeout(r, 3000));
    }
    throw new Error(`nexus never connected in ${session}`);
  };

  const firstTurn = (session: string) =>
    waitFor(() => fleet.turnsOf(session)[0], `the first model request of ${session}`, 240_000);

  it('offers the model exactly the allowed platform tools (allow-list and permissions), in tools or through tool search', async () => {
    const agent = await fleet.call('agents.forWorkspace', { workspace: ws });
    await fleet.call('agents.update', {
      id: agent.id,
      tools: ['memory.search', 'skill.list', 'board.comment', 'memory.propose'],
      permissions: ['board.write'],
    });
    /** The first request made once nexus is connected, and the tools the model can reach there. */
    const offered = async (name: string) => {
      const x = await fleet.createSession(ws, { name, initialMessage: 'look around' });
      fleet.script(x.id, ...afterConnected({ text: 'Looked.' }));
      const turn = await nudge(x.id);
      return { session: x, tools: reachable(turn) };
    };
    const narrow = await offered('narrow');
    expect(narrow.tools).toEqual(['mcp__nexus__board_comment', 'mcp__nexus__memory_search', 'mcp__nexus__skill_list']);
    await fleet.call('agents.update', {
      id: agent.id,
      tools: [],
      permissions: ['memory.write', 'skill.write', 'task.write', 'board.write'],
    });
    const wide = await offered('wide');
    expect(wide.tools).toEqual(
      [
        'board_comment',
        'memory_propose',
        'memory_search',
        'run_search',
        'skill_list',
        'skill_propose',
        'skill_view',
        'task_delegate',
        'task_subtask',
      ].map((t) => `mcp__nexus__${t}`),
    );
    for (const x of [narrow.session, wide.session])
      await fleet.call('sessions.delete', { session: x.id, deleteBranch: true });
  }, 600_000);

  it('a scripted task.delegate shows on the Board; "Start a session on it" runs one that comments on its card', async () => {
    const lead = await fleet.createSession(ws, { name: 'lead', initialMessage: 'Ship the release' });
    fleet.script(
      lead.id,
      ...afterConnected(
        { toolUse: { name: 'ToolSearch', input: { query: 'select:mcp__nexus__task_delegate', max_results: 5 } } },
        {
          toolUse: {
            name: 'mcp__nexus__task_delegate',
            input: { title: 'Review the release notes', roleHint: 'reviewer' },
          },
        },
        { text: 'Delegated the review.' },
      ),
    );
    await nudge(lead.id);
    const board = await readUntil(
      () => fleet.call('board.list', {}),
      (b) => b.tasks.some((t) => t.title === 'Review the release notes'),
      240_000,
    );
    const review = board.tasks.find((t) => t.title === 'Review the release notes');
    expect(review).toMatchObject({ status: 'ready_for_agent', roleHint: 'reviewer', workspaceName: ws });
    expect(review?.createdBy && actorLabel(review.createdBy)).toBe(`${ws} · lead`);
    expect(board.tasks.find((t) => t.title === 'Ship the release')?.sessions.map((x) => x.name)).toEqual(['lead']);

    // What the card's button sends (renderer/src/features/board/TaskCard.tsx).
    const reviewer = await fleet.call('sessions.create', {
      workspace: review?.workspaceId ?? '',
      name: 'reviewer',
      taskId: review?.id ?? '',
      initialMessage: 'Review the release notes',
    });
    fleet.script(
      reviewer.id,
      ...afterConnected(
        { toolUse: { name: 'ToolSearch', input: { query: 'select:mcp__nexus__board_comment', max_results: 5 } } },
        { toolUse: { name: 'mcp__nexus__board_comment', input: { body: 'Notes look good.' } } },
        { text: 'Reviewed.' },
      ),
    );
    await nudge(reviewer.id);
    const after = await readUntil(
      () => fleet.call('board.list', {}),
      (b) => (b.tasks.find((t) => t.id === review?.id)?.comments.length ?? 0) > 0,
      240_000,
    );
    const card = after.tasks.find((t) => t.id === review?.id);
    expect(card).toMatchObject({ status: 'in_progress', sessions: [{ id: reviewer.id, name: 'reviewer' }] });
    expect(card?.comments.map((c) => [c.body, actorLabel(c.by)])).toEqual([['Notes look good.', `${ws} · reviewer`]]);
  }, 600_000);

  it('with NATS stopped a session still starts and talks to the model, without platform tools, and says why', async () => {
    await fleet.running.core.platform.dispose();
    const s = await fleet.createSession(ws, { name: 'offline', initialMessage: 'hello without tools' });
    const turn = await firstTurn(s.id);
    expect(reachable(turn)).toEqual([]);
    const now = await fleet.call('sessions.get', { session: s.id });
    expect(now.status).toBe('running');
    expect(now.toolsReason).toMatch(/Platform tools are off/);
  }, 600_000);
});
