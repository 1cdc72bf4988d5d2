/** tmux's default prefix, Ctrl-b; `d` after it detaches, as in `tmux attach`. */
export const PREFIX = '\u0002';

export interface KeyStep {
  /** What goes on to the agent. */
  forward: string;
  /** Prefix then `d` was typed: detach. */
  detach: boolean;
}

/**
 * The keys of an attached terminal, read for prefix + d. Nexus's viewer has no tmux prefix (every key
 * goes to the agent), so the CLI keeps tmux's habit itself: Ctrl-b d detaches, Ctrl-b Ctrl-b sends one
 * Ctrl-b, Ctrl-b and any other key send both. The prefix may end one read and `d` start the next.
 */
export function detachKeys(): (chunk: string) => KeyStep {
  let pending = false;
  return (chunk) => {
    let forward = '';
    for (const ch of chunk) {
      if (pending) {
        pending = false;
        if (ch === 'd') return { forward, detach: true };
        forward += ch === PREFIX ? PREFIX : PREFIX + ch;
      } else if (ch === PREFIX) pending = true;
      else forward += ch;
    }
    return { forward, detach: false };
  };
}
