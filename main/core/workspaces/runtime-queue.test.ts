import { describe, expect, it } from 'vitest';
import { WorkspaceRuntime } from './runtime';

/** The queue needs neither engine nor store. */
const queue = () => new WorkspaceRuntime({ docker: null as never, store: null as never });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the workspace runtime queue', () => {
  it('runs concurrent jobs of one workspace one at a time, in order', async () => {
    const q = queue();
    let active = 0;
    let maxActive = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        q.run('w1', async () => {
          active++;
          maxActive = Math.max(maxActive, active);
          await sleep(5);
          order.push(i);
          active--;
        }),
      ),
    );
    expect(maxActive).toBe(1);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('runs jobs of different workspaces in parallel', async () => {
    const q = queue();
    let active = 0;
    let maxActive = 0;
    await Promise.all(
      ['w1', 'w2', 'w3'].map((w) =>
        q.run(w, async () => {
          active++;
          maxActive = Math.max(maxActive, active);
          await sleep(20);
          active--;
        }),
      ),
    );
    expect(maxActive).toBe(3);
  });

  it('keeps going after a failed job and hands each caller its own result', async () => {
    const q = queue();
    const a = q.run('w1', () => Promise.reject(new Error('boom')));
    const b = q.run('w1', () => Promise.resolve(42));
    await expect(a).rejects.toThrow('boom');
    await expect(b).resolves.toBe(42);
    await q.idle();
  });
});
