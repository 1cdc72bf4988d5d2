import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { bundleWorkerScripts, type WorkerScripts } from '../../../../test/helpers/worker-scripts';
import { WORKER_NODE, type ExecResult } from '../../docker';
import type { ContainerExec } from '../container-sh';
import { helperSend, inboxHelperPath } from './inbox-helper';

/**
 * The one-shot helper's path after a container restart emptied its /tmp (issue 39: a send_message answered
 * `internal: Cannot find module …/nexus-inbox-send.cjs`). The container is this machine's shell: the same `sh`
 * scripts and the real helper bundle run here, with this Node standing in for the worker's pinned one. The
 * whole path in a restarted container is inbox-after-restart.docker.test.ts.
 */
const dir = tempDir('nexus-inbox-helper-');
let scripts: WorkerScripts;
const ws = { name: 'one', containerId: 'c1' };
const wait = { statusWaitMs: 200 };

/** A ContainerExec that runs argv on this machine. */
const here: ContainerExec = {
  exec: (_ws, argv, opts = {}) =>
    new Promise<ExecResult>((resolve, reject) => {
      const [cmd, ...args] = argv.map((a) => (a === WORKER_NODE ? process.execPath : a));
      const p = spawn(cmd!, args, { env: { ...process.env, ...opts.env } });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      p.on('error', reject);
      p.on('close', (code) => resolve({ stdout, stderr, exitCode: code ?? -1, cut: { stdout: 0, stderr: 0 } }));
      // The wrapper exits (97) without reading stdin when the helper is gone: the pipe may close before the write.
      p.stdin.on('error', (e: NodeJS.ErrnoException) => void (e.code === 'EPIPE' || reject(e)));
      p.stdin.end(opts.stdin ?? '');
    }),
};

const configIn = (name: string) => ({
  toolsDir: join(dir.path, name, 'nexus-tools'),
  stateDir: join(dir.path, name, 'nexus-sessions'),
  sendTimeoutMs: 2000,
});

beforeAll(async () => {
  scripts = await bundleWorkerScripts(join(dir.path, 'bin'));
}, 60_000);
afterAll(() => dir.remove());

describe('the inbox helper in a container whose /tmp a restart emptied', () => {
  it('is put back from the host and runs: the session’s missing inbox is the answer, not a missing module', async () => {
    const config = configIn('restarted');
    const answer = await helperSend(here, config, ws, 's1', 'hello', scripts.inboxSend, wait);
    expect(answer).toEqual({
      report: { outcome: 'socket_missing', detail: expect.stringMatching(/not announced its inbox/) },
      reinstalled: true,
    });
    const helper = inboxHelperPath(config.toolsDir);
    expect(statSync(helper).mode & 0o777).toBe(0o755);
    expect(statSync(config.toolsDir).mode & 0o777).toBe(0o700);
  });

  it('runs at once, putting nothing back, where the helper is in place', async () => {
    const config = configIn('in-place');
    await helperSend(here, config, ws, 's1', 'first', scripts.inboxSend, wait);
    const second = await helperSend(here, config, ws, 's1', 'second', join(dir.path, 'no-such-bundle.cjs'), wait);
    expect(second.reinstalled).toBe(false);
    expect(second.report.outcome).toBe('socket_missing');
  });

  it('answers unavailable, saying why, when the helper cannot be put back', async () => {
    // A file where the tools directory should be: mkdir fails, as on a full or read-only /tmp.
    const config = configIn('blocked');
    mkdirSync(join(dir.path, 'blocked'), { recursive: true });
    writeFileSync(config.toolsDir, 'not a directory');
    await expect(helperSend(here, config, ws, 's1', 'hello', scripts.inboxSend, wait)).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/gone from workspace one's container \(it restarted\) and could not be put back/),
    });
  });

  it('answers unavailable, saying why, when Nexus has no copy of the helper to put back', async () => {
    const config = configIn('no-copy');
    await expect(
      helperSend(here, config, ws, 's1', 'hello', join(dir.path, 'no-such-bundle.cjs'), wait),
    ).rejects.toMatchObject({ code: 'unavailable', message: expect.stringMatching(/cannot read its own copy/) });
    expect(existsSync(inboxHelperPath(config.toolsDir))).toBe(false);
  });

  it('answers unavailable with the helper’s exit and words when it runs but reports nothing', async () => {
    const config = configIn('broken');
    mkdirSync(config.toolsDir, { recursive: true });
    writeFileSync(inboxHelperPath(config.toolsDir), "process.stderr.write('inbox helper broke'); process.exit(3);");
    await expect(helperSend(here, config, ws, 's1', 'hello', scripts.inboxSend, wait)).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/failed \(exit 3\): inbox helper broke/),
    });
  });
});
