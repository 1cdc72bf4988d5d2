import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migrations } from '.';

const usageRow = `INSERT OR IGNORE INTO model_usage (request_id, session_id, workspace_id, agent, task_id, day, model,
    input_tokens, output_tokens, cache_write_tokens, cache_read_tokens, at)
  VALUES (?, ?, 'w1', 'claude', NULL, ?, ?, ?, 1, 0, 2, 'now')`;

describe('migration 033 model prices', () => {
  const dir = tempDir();
  afterEach(() => dir.remove());

  it('keeps one price per model pattern and refuses a negative price', () => {
    const db = openStore(join(dir.path, 'a.db'), migrations, 33);
    const insert = db.prepare(
      `INSERT INTO model_prices (model, input_usd, output_usd, cache_write_usd, cache_read_usd, updated_at)
       VALUES (?, ?, 1, 1, 1, 'now')`,
    );
    insert.run('claude-sonnet-4-5', 3);
    insert.run('gpt-5*', 1.25);
    expect(() => insert.run('claude-sonnet-4-5', 4)).toThrow(/UNIQUE/);
    expect(() => insert.run('neg', -1)).toThrow(/CHECK/);
    expect(() => insert.run('', 1)).toThrow(/CHECK/);
    expect(db.prepare('SELECT model, input_usd AS input FROM model_prices ORDER BY model').all()).toEqual([
      { model: 'claude-sonnet-4-5', input: 3 },
      { model: 'gpt-5*', input: 1.25 },
    ]);
  });

  it('sums the ledger per session, day and model: the rows before it, and each new request once', () => {
    const db = openStore(join(dir.path, 'b.db'), migrations, 32);
    const add = (id: string, session: string, day: string, model: string | null, input: number) =>
      db.prepare(usageRow).run(id, session, day, model, input);
    add('r1', 's1', '2026-12-01', 'gpt-5', 10);
    add('r2', 's1', '2026-12-01', 'gpt-5', 5);
    add('r3', 's1', '2026-12-01', null, 7);
    db.close();
    const after = openStore(join(dir.path, 'b.db'), migrations, 33);
    const addAfter = (id: string, session: string, day: string, model: string | null, input: number) =>
      after.prepare(usageRow).run(id, session, day, model, input);
    addAfter('r4', 's1', '2026-12-01', 'gpt-5', 100);
    addAfter('r4', 's1', '2026-12-01', 'gpt-5', 100); // the same request again: ignored, not added
    addAfter('r5', 's1', '2026-12-02', 'gpt-5', 1);
    addAfter('r6', 's2', '2026-12-01', null, 3);
    expect(
      after
        .prepare(
          `SELECT session_id AS s, day, model, requests AS n, input_tokens AS i, output_tokens AS o,
             cache_read_tokens AS cr FROM model_usage_daily ORDER BY s, day, model`,
        )
        .all(),
    ).toEqual([
      { s: 's1', day: '2026-12-01', model: '', n: 1, i: 7, o: 1, cr: 2 },
      { s: 's1', day: '2026-12-01', model: 'gpt-5', n: 3, i: 115, o: 3, cr: 6 },
      { s: 's1', day: '2026-12-02', model: 'gpt-5', n: 1, i: 1, o: 1, cr: 2 },
      { s: 's2', day: '2026-12-01', model: '', n: 1, i: 3, o: 1, cr: 2 },
    ]);
    after.close();
  });
});
