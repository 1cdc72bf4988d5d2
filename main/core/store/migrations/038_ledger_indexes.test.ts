import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { UsageStore } from '../../gateway/usage-store';
import { openStore } from '../open';
import { migrations } from '.';

const indexes = (db: ReturnType<typeof openStore>): string[] =>
  (
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'model_usage' ORDER BY name")
      .all() as { name: string }[]
  ).map((r) => r.name);

describe('migration 038 ledger indexes', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('drops the ledger indexes no read uses, keeps the session one, and the sums still follow each row', async () => {
    const file = join(dir.path, 'a.db');
    const before = openStore(file, migrations, 37);
    expect(indexes(before)).toEqual([
      'model_usage_day',
      'model_usage_session',
      'model_usage_workspace',
      'sqlite_autoindex_model_usage_1',
    ]);
    before.close();
    const db = openStore(file, migrations);
    expect(indexes(db)).toEqual(['model_usage_session', 'sqlite_autoindex_model_usage_1']);
    const usage = new UsageStore(db);
    const row = (requestId: string) => ({
      requestId,
      sessionId: 's1',
      workspaceId: 'w1',
      agent: 'claude',
      taskId: null,
      counts: { model: 'm', input: 10, output: 5, cacheWrite: 1, cacheRead: 2 },
      at: new Date('2026-12-06T10:00:00Z'),
    });
    expect(await usage.record(row('r1'))).toBe(true);
    expect(await usage.record(row('r1'))).toBe(false);
    expect(await usage.record(row('r2'))).toBe(true);
    await usage.close();
    expect(usage.workspace('w1')).toMatchObject({ requests: 2, input: 20, output: 10, total: 36 });
    expect(usage.day('2026-12-06')).toMatchObject({ requests: 2, total: 36 });
    db.close();
  });
});
