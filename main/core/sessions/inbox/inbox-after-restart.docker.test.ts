import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionRig, type SessionRig } from '../../../../test/helpers/session-rig';
import { waitFor } from '../../../../test/helpers/wait';
import { createLogger } from '../../log';
import { Redactor } from '../../redact';
import type { WorkspaceInfo } from '../../workspaces/runtime';
import { WorkspaceEvents } from '../../workspaces/workspace-events';
import { convergeOnWorkspaceStart } from '../converge/converge-on-start';

/**
 * A message to a session whose workspace container was just restarted (issue 39). The soak restarted one under
 * load and a send_message answered `internal: The inbox helper failed (exit 1): … Cannot find module
 * '/tmp/nexus-tools/nexus-inbox-send.cjs'`: the worker tools live on the container's /tmp tmpfs, which the restart
 * emptied, and come back only when converge relaunches a session there. This rig has no hook relay for messages,
 * so every message takes the fallback, the one-shot helper's `docker exec` — the path a restarted container's
 * messages take until its relay is started again. A real container (the hardened shape, /tmp a tmpfs), the
 * fixture as the agent.
 */
let rig: SessionRig;
let ws: WorkspaceInfo;

beforeAll(async () => {
  rig = await sessionRig();
  ws = await rig.addWorkspace('restarted');
}, 180_000);

afterAll(async () => {
  await rig?.dispose();
});

const container = (): string => ws.containerId as string;
const records = (id: string) => rig.records(container(), id);

describe('a message to a session whose container just restarted (real container, the fixture as the agent)', () => {
  it('waits for the relaunched agent and arrives, where it answered internal: Cannot find module', async () => {
    const s = await rig.service.create({ workspace: 'restarted', name: 'survivor' });
    await rig.service.idle();
    await waitFor(async () => (await rig.service.get(s.id)).agentState === 'idle', 'the agent to start', 60_000);

    // As `docker restart` does it (the soak's container-restart fault): /tmp comes back empty.
    await rig.docker.getContainer(container()).restart({ t: 1 });
    expect(await rig.sh(container(), 'ls -A /tmp')).toBe('');

    const log = createLogger({ redactor: new Redactor() });
    const signals = new WorkspaceEvents(log);
    const converging = convergeOnWorkspaceStart(signals, rig.service, log);
    try {
      // The message comes before core has seen the container start again: no helper, no inbox.
      const note = 'after the restart: \'single\' "double" $HOME ünïcødé';
      let settled = false;
      const sent = rig.service.sendMessage(s.id, note).finally(() => (settled = true));
      sent.catch(() => undefined);
      await waitFor(
        async () =>
          settled || (await rig.sh(container(), 'test -f /tmp/nexus-tools/nexus-inbox-send.cjs && echo back')),
        'the message to be answered or the helper to be back',
      );
      // Then core sees it start (workspaces' container watch) and converges: the session is relaunched.
      signals.emit('started', { workspaceId: ws.id });

      await expect(sent).resolves.toMatchObject({ sessionId: s.id, status: 'sent_unconfirmed' });
      const launches = (await records(s.id)).filter((r) => r.kind === 'launch');
      expect(launches).toHaveLength(1);
      expect(JSON.stringify((launches[0] as { argv: string[] }).argv)).toMatch(/--resume/);
      const messages = (await records(s.id)).filter((r) => r.kind === 'message');
      expect(messages.map((m) => m.content)).toEqual([note]);
      expect(await rig.service.get(s.id)).toMatchObject({ status: 'running' });
    } finally {
      converging.dispose();
      await rig.service.idle();
    }
  }, 240_000);
});
