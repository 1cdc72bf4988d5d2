import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { openStore } from '../open';
import { migrations } from '.';

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
});
