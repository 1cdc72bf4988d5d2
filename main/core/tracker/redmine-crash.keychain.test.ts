import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunCredentials } from '../platform/platform-service';
import { openCore, repoRoot } from '../../../test/helpers/core';
import { okResult } from '../../../test/helpers/platform-fixture';
import { startRedmine, type RedmineServer } from '../../../test/helpers/redmine';
import { connectRun } from '../../../test/helpers/run-client';
import { tempDir } from '../../../test/helpers/temp-dir';
import { asOperator } from '../../../test/helpers/tracker-fixture';
import { waitFor } from '../../../test/helpers/wait';

const body = (m: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve) => {
    const parts: Buffer[] = [];
    m.on('data', (d: Buffer) => parts.push(d));
    m.on('end', () => resolve(Buffer.concat(parts)));
  });

/**
 * A pass-through to the real Redmine that can hold the first comment (until every comment is stored) and, at one
 * comment, let Redmine take it and then kill core before core hears the answer: the send whose outcome core cannot know.
 */
function killingProxy(target: string, o: { holdFirst: Promise<void>; killAt: number; kill(): Promise<void> }) {
  const seen: string[] = [];
  let puts = 0;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const payload = await body(req);
      const isComment = req.method === 'PUT' && /"notes"/.test(payload.toString());
      if (isComment) {
        if (puts === 0) await o.holdFirst;
        puts++;
        seen.push(/\[nexus:([0-9a-f-]+)\]/.exec(payload.toString())?.[1] ?? '?');
      }
      const n = puts;
      const up = request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        void body(answer).then(async (b) => {
          if (isComment && n === o.killAt) {
            // Redmine has the comment; core never hears so.
            await o.kill();
            res.destroy();
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers).end(b);
        });
      });
      up.on('error', () => res.destroy());
      up.end(payload);
    })();
  });
  return { server, seen };
}

describe('a core killed mid-send (kill -9) against a real Redmine', () => {
  const dir = tempDir();
  let redmine: RedmineServer | undefined;
  afterAll(async () => {
    await redmine?.dispose();
    dir.remove();
  });

  it('loses no comment and doubles none: the one whose answer was lost is found on the issue, the rest follow', async () => {
    redmine = await startRedmine();
    const issue = await redmine.issue('Survive a crash', '');
    let release: () => void = () => undefined;
    const holdFirst = new Promise<void>((r) => (release = r));
    let child: ChildProcess | null = null;
    let killed = false;
    const proxy = killingProxy(redmine.url, {
      holdFirst,
      killAt: 10,
      kill: async () => {
        const c = child;
        if (!c) return;
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGKILL');
        await exited;
        killed = true;
      },
    });
    await new Promise<void>((r) => proxy.server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}`;
    const c = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'test/children/tracker-core-until-killed.ts',
        dir.path,
        url,
        redmine.apiKey,
        redmine.project,
        String(issue),
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    child = c;
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: c.stdout }).once('line', resolve);
      c.once('exit', (code) => reject(new Error(`child exited early (${code})`)));
    });
    const { taskId, run } = JSON.parse(line) as { taskId: string; run: RunCredentials };
    const worker = await connectRun(run);
    const ids: string[] = [];
    for (let i = 1; i <= 20; i++)
      ids.push(String(okResult(await worker.call('board.comment', { body: `step ${i}` })).id));
    await worker.close();
    // Every comment is stored (and answered) before the first reaches Redmine; the 10th's answer is then lost.
    release();
    await waitFor(() => killed, 'core killed mid-send', 30_000);
    expect(await redmine.journals(issue)).toHaveLength(10);

    const core = await openCore(dir.path, { tracker: { retryBaseMs: 200, retryMaxMs: 2_000 } });
    try {
      await waitFor(
        async () => (await asOperator(core, 'tracker.outbox', { taskId })).entries.every((e) => e.state === 'sent'),
        'every outbox row sent after the restart',
        30_000,
      );
      const notes = (await redmine.journals(issue)).map((j) => j.notes);
      expect(notes.map((n) => n.split('\n')[0])).toEqual(ids.map((_, i) => `step ${i + 1}`));
      // The 10th went out once: after the restart it was looked for (found), never sent again.
      const tenth = proxy.seen[9];
      expect(proxy.seen.filter((m) => m === tenth)).toHaveLength(1);
      expect(proxy.seen).toHaveLength(20);
      const { tasks } = await asOperator(core, 'board.list', {});
      expect(tasks.find((t) => t.id === taskId)?.comments.map((x) => x.mirror)).toEqual(ids.map(() => 'sent'));
    } finally {
      await core.dispose();
      proxy.server.close();
    }
  }, 120_000);
});
