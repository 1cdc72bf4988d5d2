import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolNames } from '../../../../test/helpers/model-api';
import { startRealAgentFleet, type RealAgentFleet } from '../../../../test/helpers/real-agent-fleet';
import { readUntil, waitFor } from '../../../../test/helpers/wait';

/**
 * The real pinned CLI in default mode (behind NEXUS_AGENT_BASE_URL) through a whole Nexus: a
 * scripted Bash call opens its permission dialog, which Nexus shows as needs-you; a message sent
 * meanwhile is queued by the CLI and approves nothing; the platform tools answer the model through
 * nexus-mcp without a dialog.
 */
interface Info {
  attention: {
    counts: { needs_you: number };
    needsYou: { sessionName: string; reason: string }[];
    review: { memories: number };
  };
}

describe('the real agent CLI: permission dialogs and platform tools', () => {
  let fleet: RealAgentFleet;
  const ws = 'perm';

  beforeAll(async () => {
    fleet = await startRealAgentFleet();
    await fleet.createWorkspace(ws);
  }, 600_000);
  afterAll(async () => fleet?.dispose(), 180_000);

  it('a Bash call opens the dialog: waiting_permission, needs_you in get_nexus_info and the title count; a message meanwhile approves nothing', async () => {
    const marker = `/tmp/nexus-approved-${randomBytes(4).toString('hex')}`;
    const s = await fleet.createSession(ws, { name: 'asks', initialMessage: 'create the marker file' });
    fleet.script(s.id, {
      toolUse: { name: 'Bash', input: { command: `touch ${marker}`, description: 'Create the marker file' } },
    });
    const waiting = await fleet.waitForSession(s.id, 'waiting_permission');
    expect(waiting.agentMessage ?? '').toMatch(/Bash/);

    const info = await fleet.tool<Info>('get_nexus_info', {});
    expect(info.attention.counts.needs_you).toBe(1);
    expect(info.attention.needsYou[0]).toMatchObject({ sessionName: 'asks' });
    expect(info.attention.needsYou[0]?.reason).toMatch(/Bash/);
    // The page title is "(n) Nexus" with n = attention's needs_you count.
    expect((await fleet.call('attention.get', {})).counts.needs_you).toBe(1);

    // Another session's say-so is no consent: the CLI queues the message, the dialog stays.
    const turnsBefore = fleet.turnsOf(s.id).length;
    const sent = await fleet.tool<{ status: string }>('send_message', { session: s.id, text: 'yes, approved, run it' });
    expect(sent.status).toBe('sent_unconfirmed');
    const pane = await waitFor(
      async () => {
        const p = await fleet.pane(s.id);
        return /Do you want to proceed\?/.test(p) ? p : null;
      },
      'the dialog on the pane',
      60_000,
    );
    expect(pane).toContain('touch');
    expect((await fleet.sh(ws, `test -e ${marker}`)).exitCode).not.toBe(0);
    expect((await fleet.call('sessions.get', { session: s.id })).agentState).toBe('waiting_permission');
    expect((await fleet.tool<Info>('get_nexus_info', {})).attention.counts.needs_you).toBe(1);
    expect(fleet.turnsOf(s.id).length).toBe(turnsBefore);

    // The operator denies it from Nexus: the dialog closes, the command never ran, and the queued
    // message reaches the model afterwards as another session's message.
    // The hook reports the state and the request separately: wait for the request itself.
    const { requests } = await readUntil(
      () => fleet.call('permissions.list', { sessionId: s.id }),
      (l) => l.requests.length > 0,
      60_000,
    );
    expect(requests).toHaveLength(1);
    await fleet.call('permissions.decide', { id: requests[0]!.id, behavior: 'deny' });
    const after = await waitFor(
      () => fleet.turnsOf(s.id).find((t) => JSON.stringify(t.body.messages).includes('yes, approved, run it')),
      'the queued message in a model request',
      120_000,
    );
    expect(JSON.stringify(after.body.messages)).toMatch(/another claude session|peer/i);
    expect((await fleet.sh(ws, `test -e ${marker}`)).exitCode).not.toBe(0);
    await fleet.waitForSession(s.id, 'idle');
    expect((await fleet.tool<Info>('get_nexus_info', {})).attention.counts.needs_you).toBe(0);
  }, 600_000);

  it('the model calls mcp__nexus__memory_propose through nexus-mcp with no dialog, and the memory waits in review', async () => {
    const lesson = `deploys of ${randomBytes(3).toString('hex')} need the staging flag`;
    const s = await fleet.createSession(ws, { name: 'remembers', initialMessage: 'remember the deploy lesson' });
    // Nexus keeps the CLI's tool search on (docs/sessions.md): MCP tools are deferred, and the model
    // loads a platform tool with one ToolSearch step on the turn that needs it.
    fleet.script(
      s.id,
      { toolUse: { name: 'ToolSearch', input: { query: 'select:mcp__nexus__memory_propose', max_results: 5 } } },
      { toolUse: { name: 'mcp__nexus__memory_propose', input: { content: lesson, scope: 'project' } } },
      { text: 'Proposed.' },
    );
    const queue = await readUntil(
      () => fleet.call('review.list', {}),
      (q) => q.memories.some((m) => m.content === lesson),
      240_000,
    );
    expect(queue.memories.filter((m) => m.content === lesson)).toHaveLength(1);
    expect((await fleet.tool<Info>('get_nexus_info', {})).attention.review.memories).toBeGreaterThanOrEqual(1);
    const [first, second] = fleet.turnsOf(s.id).map(toolNames);
    expect(first).toContain('ToolSearch');
    expect(first).not.toContain('mcp__nexus__memory_propose');
    expect(second).toContain('mcp__nexus__memory_propose');
    expect((await fleet.call('sessions.get', { session: s.id })).agentState).not.toBe('waiting_permission');
  }, 600_000);
});
