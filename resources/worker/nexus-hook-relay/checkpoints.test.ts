import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayCheckpoint } from '../../../main/core/platform/checkpoint-relay';
import { hookGrant } from '../../../main/core/platform/permissions';
import { CheckpointGit, checkpointRef } from '../../../main/core/review/checkpoint-git';
import { CHECKPOINT_TAKE } from '../../../shared/git-scripts';
import { startRelayProcess, type RelayProcess } from '../../../test/helpers/hook-relay-process';
import { hostExec } from '../../../test/helpers/host-exec';
import { startNats, type TestNats } from '../../../test/helpers/nats-server';
import { tempDir } from '../../../test/helpers/temp-dir';

/**
 * A turn's checkpoint without a `docker exec` (docs/performance.md, "Review"): core asks the workspace's resident hook
 * relay over NATS and the relay runs the one checkpoint script its bundle holds. A real nats-server with the
 * platform's own hook-relay grant, the relay's own entry point, and a real git clone with a session's worktree; the
 * runtime's exec stands in as `sh` on this host, counted, so each test shows which path took the checkpoint.
 */
const WS = 'w-ckpt';
const dir = tempDir('nexus-relay-ckpt-');
const repo = join(dir.path, 'repo');
const worktree = join(repo, '.nexus-worktrees', 's1');
let nats: TestNats;
let core: NatsConnection;
let relay: RelayProcess | undefined;
const git = (...args: string[]): string => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();

/** The runtime's exec as `sh` here, each call counted. */
const execs: string[][] = [];
const exec = hostExec((argv) => execs.push(argv));
const ws = { id: WS, name: 'ckpt', containerId: 'c' };
const sha = createHash('sha256').update(CHECKPOINT_TAKE).digest('hex');
const ask = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    scriptSha256: sha,
    worktree,
    repo,
    ref: checkpointRef('s1', 90),
    message: 'by hand',
    prev: null,
    timeoutMs: 30_000,
    ...over,
  });

beforeAll(async () => {
  mkdirSync(repo);
  git('init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'a.txt'), 'one\n');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base');
  git('worktree', 'add', '-q', '-b', 'nexus/s1', worktree);
  nats = await startNats(dir.path, [WS], (w) => hookGrant(w).permissions);
  core = await connect({ servers: nats.url, user: nats.admin.user, pass: nats.admin.pass });
  const hook = nats.hookUser(WS);
  relay = await startRelayProcess(dir.path, WS, { url: nats.url, user: hook.user, pass: hook.pass });
  // The relay subscribes right after it connects; the first request may come a moment early.
  for (let i = 0; i < 100 && (await relayCheckpoint(core, WS, '{}', 1000).catch(() => null)) === null; i++)
    await new Promise((r) => setTimeout(r, 100));
}, 60_000);

afterAll(async () => {
  relay?.kill();
  await core?.close();
  await nats?.stop();
  dir.remove();
});

describe('checkpoints through the hook relay (real nats-server, real git)', () => {
  it('takes each turn’s checkpoint with no exec: tracked and untracked files, the parent chained', async () => {
    const take = new CheckpointGit(exec, repo, (w, payload, ms) => relayCheckpoint(core, w, payload, ms));
    const before = execs.length;
    writeFileSync(join(worktree, 'a.txt'), 'one\ntwo\n');
    writeFileSync(join(worktree, 'new.txt'), 'untracked\n');
    const { taken: first, via } = await take.take(ws, worktree, checkpointRef('s1', 1), 'turn 1', null);
    expect(via).toBe('relay');
    expect(first).toMatchObject({ parent: git('rev-parse', 'main'), files: 2, additions: 2, deletions: 0 });
    expect(git('show', `${checkpointRef('s1', 1)}:new.txt`)).toBe('untracked');
    writeFileSync(join(worktree, 'new.txt'), 'changed\n');
    const { taken: second } = await take.take(ws, worktree, checkpointRef('s1', 2), 'turn 2', first.commit);
    expect(second).toMatchObject({ parent: first.commit, files: 1, additions: 1, deletions: 1 });
    expect(git('rev-parse', checkpointRef('s1', 2))).toBe(second.commit);
    expect(execs.length).toBe(before);
    // The agent's index and branch are as they were.
    expect(execFileSync('git', ['-C', worktree, 'status', '--porcelain'], { encoding: 'utf8' })).toBe(
      ' M a.txt\n?? new.txt\n',
    );
  });

  it('types the script’s own failure as the exec would (a worktree gone is not_found)', async () => {
    const take = new CheckpointGit(exec, repo, (w, payload, ms) => relayCheckpoint(core, w, payload, ms));
    const before = execs.length;
    await expect(take.take(ws, join(repo, 'gone'), checkpointRef('s1', 3), 't', null)).rejects.toMatchObject({
      code: 'not_found',
      message: "The session's worktree is gone.",
    });
    expect(execs.length).toBe(before);
  });

  it('leaves the checkpoint to the exec where no relay listens, or one of another build answers', async () => {
    expect(await relayCheckpoint(core, 'w-other', ask(), 3000)).toBeNull();
    expect(JSON.parse((await relayCheckpoint(core, WS, ask({ scriptSha256: 'f'.repeat(64) }), 5000))!)).toEqual({
      stale: true,
    });
    for (const [i, answer] of [null, '{"stale":true}'].entries()) {
      const take = new CheckpointGit(exec, repo, async () => answer);
      const before = execs.length;
      const { taken, via } = await take.take(ws, worktree, checkpointRef('s1', 10 + i), 'by exec', null);
      expect(via).toBe('exec');
      expect(git('rev-parse', checkpointRef('s1', 10 + i))).toBe(taken.commit);
      expect(execs.length).toBe(before + 1);
    }
  });

  it('answers bad_input to a request it cannot read and runs nothing', async () => {
    const refs = git('for-each-ref', 'refs/nexus');
    for (const bad of [
      ask({ ref: 'refs/heads/main' }),
      ask({ worktree: 'relative/path' }),
      ask({ prev: '$(touch /tmp/x)' }),
      ask({ extra: 1 }),
      'not json',
    ]) {
      const answer = JSON.parse((await relayCheckpoint(core, WS, bad, 5000))!) as Record<string, unknown>;
      expect(answer).toEqual({ bad_input: 'the relay got a checkpoint request it cannot read' });
    }
    expect(git('for-each-ref', 'refs/nexus')).toBe(refs);
    const take = new CheckpointGit(exec, repo, async () => '{"bad_input":"no"}');
    await expect(take.take(ws, worktree, checkpointRef('s1', 40), 't', null)).rejects.toMatchObject({
      code: 'internal',
    });
  });

  it('kills a script past its time with its children and answers 124', async () => {
    const answer = JSON.parse((await relayCheckpoint(core, WS, ask({ timeoutMs: 1 }), 5000))!) as {
      exitCode: number;
      stderr: string;
    };
    expect(answer.exitCode).toBe(124);
    expect(answer.stderr).toBe('the checkpoint did not finish within 1 ms');
    // Core reads it as the exec's own limit: a timeout, not a failed script.
    const take = new CheckpointGit(exec, repo, async () => JSON.stringify(answer));
    await expect(take.take(ws, worktree, checkpointRef('s1', 50), 't', null)).rejects.toMatchObject({
      code: 'timeout',
    });
  });

  it('takes checkpoint asks only from core: the relay’s own user may not ask one, nor answer outside its prefix', async () => {
    const hook = nats.hookUser(WS);
    const errors: string[] = [];
    const asRelay = await connect({ servers: nats.url, user: hook.user, pass: hook.pass });
    void (async () => {
      for await (const s of asRelay.status()) if (s.type === 'error') errors.push(String(s.error));
    })();
    const refs = git('for-each-ref', 'refs/nexus');
    asRelay.publish(`nexus.checkpoints.${WS}`, ask({ ref: checkpointRef('s1', 77) }), {
      reply: `nexus.checkpoint-replies.${WS}.forged`,
    });
    await asRelay.flush().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
    expect(errors.join(' ')).toMatch(/Permissions Violation for Publish to "nexus\.checkpoints\.w-ckpt"/);
    await asRelay.close();
    // A request whose reply subject is not under the workspace's checkpoint-replies prefix gets no answer.
    const stray = core.request(`nexus.checkpoints.${WS}`, ask({ ref: checkpointRef('s1', 78) }), { timeout: 1500 });
    await expect(stray).rejects.toThrow();
    expect(git('for-each-ref', 'refs/nexus')).toBe(refs);
  });
});
