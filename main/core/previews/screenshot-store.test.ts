import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/temp-dir';
import { KEEP_TURNS, ScreenshotStore } from './screenshot-store';

const dir = tempDir('nexus-shots-');
afterAll(() => dir.remove());
const jpeg = (n: number) => Buffer.from([0xff, 0xd8, 0xff, n]);

describe('the screenshots kept per session', () => {
  const store = new ScreenshotStore(dir.path);

  it('keeps the last few turn ends, every preview of each, newest first, as 0600 files', () => {
    for (let seq = 1; seq <= KEEP_TURNS + 2; seq++) {
      store.add('s1', seq, 3000, jpeg(seq), 1_700_000_000_000 + seq);
      store.add('s1', seq, 5173, jpeg(seq), 1_700_000_000_000 + seq);
    }
    const kept = store.list('s1');
    expect(kept.map((s) => [s.seq, s.port])).toEqual(
      [5, 4, 3].flatMap((seq) => [
        [seq, 3000],
        [seq, 5173],
      ]),
    );
    expect(kept[0]?.image).toBe(`data:image/jpeg;base64,${jpeg(5).toString('base64')}`);
    expect(kept[0]?.at).toBe(new Date(1_700_000_000_005).toISOString());
    expect(store.lastSeq('s1')).toBe(5);
    const file = readdirSync(join(dir.path, 's1'))[0] ?? '';
    expect(statSync(join(dir.path, 's1', file)).mode & 0o777).toBe(0o600);
  });

  it("keeps each session's apart and forgets a deleted session's", () => {
    store.add('s2', 1, 3000, jpeg(9));
    store.forget('s1');
    expect(store.list('s1')).toEqual([]);
    expect(store.lastSeq('s1')).toBe(0);
    expect(store.list('s2').map((s) => s.seq)).toEqual([1]);
  });

  it('refuses a session id that is not one (no path is built from it)', () => {
    expect(() => store.add('../x', 1, 3000, jpeg(1))).toThrow();
    expect(() => store.list('a/b')).toThrow();
  });
});
