import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostExec } from '../../../test/helpers/host-exec';
import { tempDir } from '../../../test/helpers/temp-dir';
import { RadarGit } from './radar-git';

/**
 * The radar's branch watch, its script run by this machine's sh and git on a repository the test makes (in a
 * container it is the same script; radar.docker.test.ts runs it there with eight sessions). A look that finds nothing
 * starts no git: these pin that every way git moves a branch is still seen, and soon.
 */
const local = hostExec();
const ws = { name: 'radar-watch', containerId: 'local' };

describe('the branch watch', () => {
  const dir = tempDir('nexus-radar-watch-');
  const repo = `${dir.path}/clone`;
  const git = (...args: string[]): string =>
    execFileSync('git', ['-C', repo, ...args], {
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'a',
        GIT_AUTHOR_EMAIL: 'a@x',
        GIT_COMMITTER_NAME: 'a',
        GIT_COMMITTER_EMAIL: 'a@x',
      },
    }).trim();
  const radar = new RadarGit(local, repo);
  let known = '';

  beforeAll(() => {
    execFileSync('git', ['init', '-q', '-b', 'main', repo]);
    git('commit', '-q', '--allow-empty', '-m', 'base');
    git('branch', 'nexus/a');
  });
  afterAll(() => dir.remove());

  /** Starts a watch from `known`, makes the move after `afterMs`, and gives how long the watch took and what it saw. */
  async function seen(move: () => void, afterMs = 400, secs = 10) {
    const t0 = performance.now();
    const watching = radar.watch(ws, known, secs, ['nexus/a']);
    setTimeout(move, afterMs);
    const r = await watching;
    known = r.raw;
    return { ms: performance.now() - t0, r };
  }

  it('answers at once when the branches differ from what it knows, in the form it always had', async () => {
    const r = await radar.watch(ws, '', 10, []);
    const short = execFileSync(
      'sh',
      [
        '-c',
        `cd ${repo} && git symbolic-ref -q --short HEAD; git for-each-ref --format='%(objectname) %(refname:short)' refs/heads/`,
      ],
      { encoding: 'utf8' },
    ).trim();
    expect(r.raw).toBe(short);
    expect(r.base).toBe('main');
    expect([...r.heads.keys()].sort()).toEqual(['main', 'nexus/a']);
    known = r.raw;
  });

  it('sees a branch move, a new branch in a new directory, packed refs moved and removed, and HEAD switched', async () => {
    const commit = (): string => git('commit-tree', '-m', 'x', '-p', 'HEAD', 'HEAD^{tree}');
    type Seen = Awaited<ReturnType<typeof seen>>['r'];
    const moves: { what: string; move: () => void; check: (r: Seen) => void }[] = [
      {
        what: 'a loose branch moved',
        move: () => git('update-ref', 'refs/heads/nexus/a', commit()),
        check: (r) => expect(r.heads.get('nexus/a')).toBe(git('rev-parse', 'nexus/a')),
      },
      {
        what: 'a branch in a directory made now',
        move: () => git('branch', 'nexus/deep/b'),
        check: (r) => expect(r.heads.has('nexus/deep/b')).toBe(true),
      },
      {
        what: 'a branch moved in that directory',
        move: () => git('update-ref', 'refs/heads/nexus/deep/b', commit()),
        check: (r) => expect(r.heads.get('nexus/deep/b')).toBe(git('rev-parse', 'nexus/deep/b')),
      },
      {
        what: 'a packed branch removed',
        move: () => {
          git('pack-refs', '--all');
          git('update-ref', '-d', 'refs/heads/nexus/deep/b');
        },
        check: (r) => expect(r.heads.has('nexus/deep/b')).toBe(false),
      },
      {
        what: 'a packed branch moved',
        move: () => {
          git('pack-refs', '--all');
          git('update-ref', 'refs/heads/nexus/a', commit());
        },
        check: (r) => expect(r.heads.get('nexus/a')).toBe(git('rev-parse', 'nexus/a')),
      },
      {
        what: 'HEAD switched to another branch',
        move: () => git('symbolic-ref', 'HEAD', 'refs/heads/nexus/a'),
        check: (r) => expect(r.base).toBe('nexus/a'),
      },
    ];
    for (const { what, move, check } of moves) {
      const before = known;
      const { ms, r } = await seen(move);
      expect(r.raw, what).not.toBe(before);
      check(r);
      // The move comes 0.4 s in; a look every 0.1 s sees it well before the watch's 10 s end.
      expect(ms, what).toBeLessThan(3000);
    }
  }, 60_000);

  it('answers after its seconds with the same state when nothing moves', async () => {
    const { ms, r } = await seen(() => undefined, 0, 1);
    expect(r.raw).toBe(known);
    expect(r.results).toBeNull();
    expect(ms).toBeGreaterThanOrEqual(900);
  });
});
