import { afterAll, beforeAll, expect, it } from 'vitest';
import { sessionRig, type SessionRig } from '../../../../test/helpers/session-rig';
import { waitFor } from '../../../../test/helpers/wait';

// An agent that stops at a dialog and never reports SessionStart (like the CLI's trust question).
const STUCK_AGENT = ['sh', '-c', 'echo "Do you trust the files in this folder?"; sleep 600'];

let rig: SessionRig;

beforeAll(async () => {
  rig = await sessionRig({ agentCommand: STUCK_AGENT }, { startupTimeoutMs: 3_000 });
  await rig.addWorkspace('stuck');
}, 120_000);

afterAll(async () => {
  await rig?.dispose();
});

it('puts a session whose agent never starts in error, with what its window shows as the reason', async () => {
  const created = await rig.service.create({ workspace: 'stuck', name: 'trust' });
  await waitFor(async () => (await rig.service.get(created.id)).status === 'running', 'the session to launch');
  const s = await waitFor(async () => {
    const cur = await rig.service.get(created.id);
    return cur.status === 'error' ? cur : null;
  }, 'the start-up watchdog');
  expect(s.reason).toContain('The agent did not start within 3 s');
  expect(s.reason).toContain('Do you trust the files in this folder?');
}, 120_000);
