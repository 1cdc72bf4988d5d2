import { describe, expect, it } from 'vitest';
import { attribute } from './attribution';
import { parseListeners } from './listeners';

// /proc/net/tcp{,6} addresses as the kernel writes them: little-endian words.
const ANY4 = '00000000';
const LOOP4 = '0100007F';
const ANY6 = '00000000000000000000000000000000';
const LOOP6 = '00000000000000000000000001000000';
const row = (
  address: string,
  port: number,
  pid: number | null,
  cwd: string | null,
  process: string | null = 'node',
) => ({
  address,
  port,
  pid,
  cwd,
  process: pid === null ? null : process,
});

const sessions = [
  { id: 'a', worktree: '/workspace/.nexus-worktrees/a' },
  { id: 'ab', worktree: '/workspace/.nexus-worktrees/ab', ports: { from: 4100, to: 4109 } },
];

describe('listening ports and the sessions they belong to', () => {
  it('groups sockets by port and says whether a port is reachable beyond the loopback', () => {
    const listeners = parseListeners(
      JSON.stringify([
        row(ANY4, 3000, 10, '/x'),
        row(ANY6, 3000, 10, '/x'),
        row(LOOP4, 5173, 11, '/y'),
        row(LOOP6, 5173, 11, '/y'),
        row(LOOP6, 8080, null, null),
      ]),
    );
    expect(listeners).toEqual([
      { port: 3000, loopbackOnly: false, ipv6Only: false, processes: [{ pid: 10, cwd: '/x', process: 'node' }] },
      { port: 5173, loopbackOnly: true, ipv6Only: false, processes: [{ pid: 11, cwd: '/y', process: 'node' }] },
      { port: 8080, loopbackOnly: true, ipv6Only: true, processes: [] },
    ]);
  });

  it('refuses output that is not what the script writes (it comes from inside the container)', () => {
    expect(() => parseListeners('[{"address":"zz","port":1,"pid":null,"cwd":null,"process":null}]')).toThrow();
    expect(() => parseListeners('not json')).toThrow();
  });

  it("gives a port to the session whose worktree holds its process's cwd, the deepest one, not a prefix", () => {
    const got = attribute(
      parseListeners(
        JSON.stringify([
          row(ANY4, 3000, 10, '/workspace/.nexus-worktrees/a/web'),
          row(ANY4, 3001, 11, '/workspace/.nexus-worktrees/ab'),
          row(ANY4, 3002, 12, '/workspace'),
          row(ANY4, 3003, 13, '/workspace/.nexus-worktrees/abc'),
        ]),
      ),
      sessions,
    );
    expect(got.map((g) => [g.listener.port, g.sessionId, g.attributedBy])).toEqual([
      [3000, 'a', 'cwd'],
      [3001, 'ab', 'cwd'],
    ]);
  });

  it('gives a port no cwd claims to the session whose reserved range holds it (a process Nexus cannot see)', () => {
    const got = attribute(
      parseListeners(JSON.stringify([row(ANY4, 4105, null, null), row(ANY4, 4110, null, null)])),
      sessions,
    );
    expect(got.map((g) => [g.listener.port, g.sessionId, g.attributedBy])).toEqual([[4105, 'ab', 'ports']]);
  });

  it('gives a port the recipe forwards, and no session claims, to every session of the workspace, with its label', () => {
    const listeners = parseListeners(
      JSON.stringify([
        row(ANY4, 8000, 20, '/workspace'),
        row(ANY4, 3000, 21, '/workspace/.nexus-worktrees/a'),
        row(ANY4, 4101, null, null),
        row(ANY4, 9000, 22, '/workspace'),
      ]),
    );
    const forwarded = [
      { port: 8000, label: 'docs' },
      { port: 3000, label: 'web' },
      { port: 4101, label: null },
      { port: 5432, label: 'db' },
    ];
    const got = attribute(listeners, sessions, forwarded);
    expect(got.map((g) => [g.listener.port, g.sessionId, g.attributedBy, g.label])).toEqual([
      [3000, 'a', 'cwd', 'web'],
      [4101, 'ab', 'ports', null],
      [8000, 'a', 'forwardPorts', 'docs'],
      [8000, 'ab', 'forwardPorts', 'docs'],
    ]);
    // Without the recipe's list, the port in /workspace is nobody's.
    expect(attribute(listeners, sessions).map((g) => g.listener.port)).toEqual([3000, 4101]);
  });
});
