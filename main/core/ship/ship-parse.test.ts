import { execFileSync } from 'node:child_process';
import { writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/temp-dir';
import { boundPatches, changedFiles, LOG_FORMAT, parseLog, splitPatch, unquotePath } from './ship-parse';

// Real git output from a real repository: a modify, an add, a delete, a rename, a binary file and
// a path git has to quote.
const dir = tempDir('nexus-diff-parse-');
const repo = join(dir.path, 'r');
const git = (...args: string[]): string =>
  execFileSync('git', args, {
    cwd: repo,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Ada',
      GIT_AUTHOR_EMAIL: 'a@x',
      GIT_COMMITTER_NAME: 'Ada',
      GIT_COMMITTER_EMAIL: 'a@x',
    },
  });
const write = (p: string, text: string | Buffer): void => {
  mkdirSync(join(repo, p, '..'), { recursive: true });
  writeFileSync(join(repo, p), text);
};

beforeAll(() => {
  mkdirSync(repo);
  git('init', '-q', '--initial-branch=main');
  write('keep.txt', 'one\ntwo\nthree\n');
  write('gone.txt', 'bye\n');
  write('old name.txt', 'a\nb\nc\nd\ne\nf\n');
  git('add', '-A');
  git('commit', '-qm', 'base');
  git('checkout', '-qb', 'nexus/s');
  write('keep.txt', 'one\nTWO\nthree\nfour\n');
  rmSync(join(repo, 'gone.txt'));
  mkdirSync(join(repo, 'src'));
  git('mv', 'old name.txt', 'src/new name.txt');
  write('src/tab\there.txt', 'quoted\n');
  write('with space.txt', 'spaced\n');
  write('logo.bin', Buffer.from([0, 1, 2, 3, 0, 255]));
  git('add', '-A');
  git('commit', '-qm', 'the change\u00e9');
});
afterAll(() => dir.remove());

describe('session changes parsing', () => {
  it('lists changed files with status and counts; binary files have no counts', () => {
    const files = changedFiles(
      git('diff', '-M', '--numstat', '-z', 'main'),
      git('diff', '-M', '--name-status', '-z', 'main'),
    );
    const by = new Map(files.map((f) => [f.path, f]));
    expect(files).toHaveLength(6);
    expect(by.get('keep.txt')).toMatchObject({ status: 'modified', additions: 2, deletions: 1, binary: false });
    expect(by.get('gone.txt')).toMatchObject({ status: 'deleted', additions: 0, deletions: 1 });
    expect(by.get('src/new name.txt')).toMatchObject({ status: 'renamed', oldPath: 'old name.txt', additions: 0 });
    expect(by.get('src/tab\there.txt')).toMatchObject({ status: 'added', additions: 1 });
    expect(by.get('logo.bin')).toMatchObject({ status: 'added', binary: true, additions: null, deletions: null });
  });

  it('splits a unified diff per file, each under the path the file list uses', () => {
    const sections = splitPatch(git('diff', '-M', 'main'));
    expect(sections.map((s) => s.path).sort()).toEqual(
      ['gone.txt', 'keep.txt', 'logo.bin', 'src/new name.txt', 'src/tab\there.txt', 'with space.txt'].sort(),
    );
    const keep = sections.find((s) => s.path === 'keep.txt');
    expect(keep?.diff).toMatch(/^diff --git a\/keep.txt b\/keep.txt\n/);
    expect(keep?.diff).toContain('+TWO\n');
    expect(keep?.diff).not.toContain('gone.txt');
  });

  it('reads commits from the log format', () => {
    const commits = parseLog(git('log', `--format=${LOG_FORMAT}`, 'main..nexus/s'));
    expect(commits).toHaveLength(1);
    expect(commits[0]).toMatchObject({ subject: 'the change\u00e9', author: 'Ada' });
    expect(commits[0]?.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(Date.parse(commits[0]?.at ?? '')).not.toBeNaN();
  });

  it('cuts a large file at a line boundary and leaves files past the total bound without a diff', () => {
    const big = `diff --git a/big b/big\n--- a/big\n+++ b/big\n@@ -0,0 +1,1000 @@\n${'+line\n'.repeat(1000)}`;
    const small = 'diff --git a/s b/s\n--- a/s\n+++ b/s\n@@ -1 +1 @@\n-a\n+b\n';
    const { patches, omitted } = boundPatches(
      [
        { path: 'big', diff: big },
        { path: 's', diff: small },
        { path: 't', diff: small },
      ],
      { perFile: 1000, total: 1040 },
    );
    expect(patches[0]?.truncated).toBe(true);
    expect(patches[0]?.diff.length).toBeLessThanOrEqual(1000);
    expect(patches[0]?.diff.endsWith('+line\n')).toBe(true);
    expect(patches[1]).toBeUndefined();
    expect(omitted).toEqual(['s', 't']);
    expect(boundPatches([{ path: 's', diff: small }], { perFile: 1000, total: 1000 })).toEqual({
      patches: [{ path: 's', diff: small, truncated: false }],
      omitted: [],
    });
  });

  it('unquotes C-style paths, octal UTF-8 bytes included', () => {
    expect(unquotePath('"a\\tb"')).toBe('a\tb');
    expect(unquotePath('"caf\\303\\251.txt"')).toBe('café.txt');
    expect(unquotePath('plain')).toBe('plain');
  });
});
