import type { Listener } from './listeners';

/** What attribution needs of a session: its worktree in the container, and its reserved ports when it has some. */
export interface SessionPlace {
  id: string;
  worktree: string;
  /** The session's own port range (`PORT` and the few after it, issue 42 item 2), when its environment has one. */
  ports?: { from: number; to: number } | null;
}

/** A port the workspace's recipe forwards (devcontainer.json `forwardPorts`, its `portsAttributes` label). */
export interface ForwardedPort {
  port: number;
  label: string | null;
}

export interface Attributed {
  sessionId: string;
  listener: Listener;
  attributedBy: 'cwd' | 'ports' | 'forwardPorts';
  process: string | null;
  /** The recipe's label of the port (`portsAttributes`), when it forwards it. */
  label: string | null;
}

const inside = (dir: string, path: string): boolean => path === dir || path.startsWith(`${dir}/`);

/**
 * Which session each listening port belongs to: the session whose worktree holds the working directory of a
 * process listening on it (the dev server started in the worktree), else the session whose reserved range
 * holds the port, else, when the workspace's recipe forwards the port (`forwardPorts`: the workspace's own app,
 * e.g. started by `postStartCommand` in /workspace), every session of the workspace. Any other port (Nexus's own
 * helpers, a server started elsewhere) is nobody's preview; one two sessions claim by cwd goes to the deepest
 * worktree.
 */
export function attribute(
  listeners: readonly Listener[],
  sessions: readonly SessionPlace[],
  forwarded: readonly ForwardedPort[] = [],
): Attributed[] {
  const out: Attributed[] = [];
  for (const l of listeners) {
    const label = forwarded.find((f) => f.port === l.port)?.label ?? null;
    let best: { s: SessionPlace; depth: number; process: string | null } | null = null;
    for (const p of l.processes) {
      if (!p.cwd) continue;
      for (const s of sessions)
        if (inside(s.worktree, p.cwd) && (!best || s.worktree.length > best.depth))
          best = { s, depth: s.worktree.length, process: p.process };
    }
    if (best) {
      out.push({ sessionId: best.s.id, listener: l, attributedBy: 'cwd', process: best.process, label });
      continue;
    }
    const byRange = sessions.find((s) => s.ports && l.port >= s.ports.from && l.port <= s.ports.to);
    const process = l.processes[0]?.process ?? null;
    if (byRange) out.push({ sessionId: byRange.id, listener: l, attributedBy: 'ports', process, label });
    else if (forwarded.some((f) => f.port === l.port))
      for (const s of sessions)
        out.push({ sessionId: s.id, listener: l, attributedBy: 'forwardPorts', process, label });
  }
  return out;
}
