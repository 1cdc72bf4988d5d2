import { describe, expect, it } from 'vitest';
import { deriveAttention, rollUp } from './attention';
import {
  agentReason,
  agentStateWords,
  inputReason,
  needYouCount,
  needsYouNotification,
  permissionReason,
  trayTooltipWords,
  windowTitle,
} from './attention-words';
import { AgentState } from './contract/sessions';

const HELD = 'A message from another session needs your approval';

describe('the words for a session that waits for permission', () => {
  it('names the tool the agent asks about', () => {
    expect(permissionReason('Claude needs your permission to use Bash')).toBe('Permission needed: Bash');
  });

  it("says a held message waits for approval in the agent's words, not just that permission is needed", () => {
    expect(permissionReason(HELD)).toBe(HELD);
    expect(permissionReason(`${HELD}.`)).toBe(HELD);
  });

  it('says only that permission is needed when the agent names nothing', () => {
    for (const m of [null, '', 'Claude needs your permission', 'Waiting for permission'])
      expect(permissionReason(m)).toBe('Permission needed');
  });

  it('gives the Overview the same reason the Sessions row shows for a bypass session holding a message', () => {
    const overview = deriveAttention({
      session: { id: 's', name: 'helper', workspaceName: 'api', status: 'running', reason: null },
      health: { agentState: 'waiting_permission', at: null, message: HELD },
      workspaceRunning: true,
    });
    expect(overview.level).toBe('needs_you');
    expect(overview.reason).toBe(agentReason('waiting_permission', HELD));
    expect(overview.reason).toBe(HELD);
  });
});

describe('the words for a session that waits for an answer', () => {
  it('quotes the question, and does not repeat the generic words', () => {
    expect(inputReason('Which branch?')).toBe('Waiting for your input: Which branch?');
    expect(inputReason('Waiting for your input')).toBe('Waiting for your input');
    expect(inputReason(null)).toBe('Waiting for your input');
  });
});

describe('every state has words, and the reason starts with the chip', () => {
  it.each(AgentState.options)('%s', (state) => {
    expect(agentStateWords[state]).toMatch(/^[A-Z]/);
    expect(agentReason(state, null).startsWith(agentStateWords[state])).toBe(true);
  });
});

describe('counts and notifications', () => {
  it('counts who needs you in the tray, the tooltip and the title alike', () => {
    expect(needYouCount(1)).toBe('1 needs you');
    expect(needYouCount(3)).toBe('3 need you');
    expect(trayTooltipWords(2)).toBe('Nexus — 2 need you');
    expect(trayTooltipWords(0)).toBe('Nexus');
    expect(windowTitle(2)).toBe('(2) Nexus');
    expect(windowTitle(0)).toBe('Nexus');
  });

  it('notifies with the reason the Overview lists, naming the workspace and the session', () => {
    const item = deriveAttention({
      session: { id: 's', name: 'fix-auth', workspaceName: 'api', status: 'running', reason: null },
      health: { agentState: 'waiting_permission', at: null, message: 'Claude needs your permission to use Bash' },
      workspaceRunning: true,
    });
    const fleet = rollUp([item], { memories: 0, skills: 0 });
    expect(needsYouNotification(fleet.needsYou[0] ?? item)).toEqual({
      title: 'Nexus needs you',
      body: 'Permission needed: Bash — api · fix-auth',
    });
  });
});
