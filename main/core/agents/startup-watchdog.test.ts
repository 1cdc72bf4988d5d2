import { describe, expect, it } from 'vitest';
import { startupFailureReason } from './startup-watchdog';

// Captured from the real 2.1.332 pane: the onboarding screen, when nothing was seeded.
const ONBOARDING = `Welcome to Claude Code v2.1.332
..........................................................
     *                                       █████▓▓░
            ░░░░░░                        ███▓░
       █████████                                        *
      ██▄█████▄██                        *
.......█ █   █ █..........................................
  · Checking connectivity…
`;

describe('the start-up watchdog reason', () => {
  it("quotes what the agent's window shows, without the banner art", () => {
    expect(startupFailureReason(ONBOARDING, 60_000)).toBe(
      'The agent did not start within 60 s; its window shows: Welcome to Claude Code v2.1.332 / · Checking connectivity…',
    );
  });

  it('keeps the last lines when the pane is long, and says so when it is empty', () => {
    const long = Array.from({ length: 100 }, (_, i) => `line number ${i}`).join('\n');
    const reason = startupFailureReason(long, 30_000, 60);
    expect(reason).toMatch(/line number 99$/);
    expect(reason).not.toContain('line number 0 ');
    expect(startupFailureReason('\n  \n', 30_000)).toBe(
      'The agent did not start within 30 s and its window shows nothing.',
    );
  });
});
