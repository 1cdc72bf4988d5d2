import { spawnSync, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/temp-dir';
import { porcelainRef, progressOf } from './ship-push';

// Real `git push --porcelain --progress` output against a local bare repository.
const dir = tempDir('nexus-push-parse-');
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'a',
  GIT_AUTHOR_EMAIL: 'a@x',
  GIT_COMMITTER_NAME: 'a',
  GIT_COMMITTER_EMAIL: 'a@x',
};
const git = (cwd: string, ...args: string[]) => spawnSync('git', args, { cwd, env, encoding: 'utf8' });
const bare = join(dir.path, 'remote.git');
const work = join(dir.path, 'work');
execFileSync('git', ['init', '-q', '--bare', bare]);
execFileSync('git', ['init', '-q', '-b', 'main', work]);
git(work, 'commit', '-q', '--allow-empty', '-m', 'one');
git(work, 'remote', 'add', 'origin', bare);
afterAll(() => dir.remove());

const push = () => git(work, 'push', '--porcelain', '--progress', 'origin', 'refs/heads/main:refs/heads/main');

describe('push output', () => {
  it('reads a new branch, an update, and a non-fast-forward rejection from porcelain lines', () => {
    const first = push();
    expect(first.status).toBe(0);
    expect(porcelainRef(first.stdout, 'main')).toMatchObject({ flag: '*', summary: '[new branch]' });
    git(work, 'commit', '-q', '--allow-empty', '-m', 'two');
    expect(porcelainRef(push().stdout, 'main')?.flag).toBe(' ');
    git(work, 'reset', '-q', '--hard', 'HEAD~1');
    git(work, 'commit', '-q', '--allow-empty', '-m', 'diverged');
    const rejected = push();
    expect(rejected.status).not.toBe(0);
    expect(porcelainRef(rejected.stdout, 'main')).toMatchObject({ flag: '!' });
    expect(porcelainRef(rejected.stdout, 'main')?.summary).toMatch(/non-fast-forward|fetch first/);
    expect(porcelainRef(rejected.stdout, 'other')).toBeNull();
  });

  it("turns git's progress lines into steps with fractions", () => {
    expect(progressOf('Writing objects:  42% (21/50), 1.2 MiB | 3 MiB/s')).toEqual({
      step: 'Writing objects',
      fraction: 0.42,
    });
    expect(progressOf('remote: Resolving deltas: 100% (3/3), done.')).toEqual({
      step: 'Resolving deltas',
      fraction: 1,
    });
    expect(progressOf('Enumerating objects: 5, done.')).toEqual({ step: 'Enumerating objects' });
    expect(progressOf('To http://example/repo.git')).toBeNull();
  });
});
