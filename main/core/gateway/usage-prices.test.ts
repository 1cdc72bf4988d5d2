import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ModelPrice } from '../../../shared/contract/usage';
import { tempDir } from '../../../test/helpers/temp-dir';
import { migrations } from '../store/migrations';
import { openStore } from '../store/open';
import { LIST_PRICES } from './price-list';
import { PriceStore } from './usage-price-store';
import { estimateOf, priceOf } from './usage-prices';

const row = (model: string, input: number, output = input * 5): ModelPrice => ({
  model,
  input,
  output,
  cacheWrite: input * 1.25,
  cacheRead: input / 10,
  origin: 'operator',
  source: null,
  asOf: null,
  listPrice: null,
});

describe('the price of a model', () => {
  const table = [row('claude-sonnet-4-5', 3, 15), row('gpt-5', 1.25, 10), row('local/*', 0), row('local/big*', 2)];

  it('takes the exact name, else the name without its release date, else the longest prefix', () => {
    expect(priceOf('claude-sonnet-4-5', table)?.model).toBe('claude-sonnet-4-5');
    expect(priceOf('claude-sonnet-4-5-20250929', table)?.model).toBe('claude-sonnet-4-5');
    expect(priceOf('gpt-5-2025-08-07', table)?.model).toBe('gpt-5');
    expect(priceOf('local/small', table)?.model).toBe('local/*');
    expect(priceOf('local/big-2', table)?.model).toBe('local/big*');
  });

  it('never guesses: another model of a family, a suffix other than a date, no model at all have no price', () => {
    expect(priceOf('claude-sonnet-4-6', table)).toBeNull();
    expect(priceOf('gpt-5-pro', table)).toBeNull();
    expect(priceOf('gpt-5-mini-2025-08-07', table)).toBeNull();
    expect(priceOf(null, table)).toBeNull();
  });

  it('prices the shipped kinds’ models from the list, each row citing its source and date', () => {
    for (const p of LIST_PRICES) {
      expect(p.source).toMatch(/^https:\/\//);
      expect(p.asOf).toMatch(/^\d{4}-\d{2}/);
    }
    const list = LIST_PRICES.map((p) => ({ ...p, origin: 'list' as const, listPrice: null }));
    for (const model of ['claude-sonnet-4-5-20250929', 'claude-opus-4-1-20250805', 'gpt-5-codex', 'gemini-2.5-pro'])
      expect(priceOf(model, list), model).not.toBeNull();
  });
});

describe('the usage estimate', () => {
  const table = [row('claude-sonnet-4-5', 3, 15), row('gpt-5', 1.25, 10)];

  it('sums each model’s four counts at its prices, per million tokens', () => {
    const e = estimateOf(
      [
        { model: 'claude-sonnet-4-5-20250929', input: 1_000_000, output: 100_000, cacheWrite: 200_000, cacheRead: 2e6 },
        { model: 'gpt-5', input: 400_000, output: 10_000, cacheWrite: 0, cacheRead: 1_000_000 },
      ],
      table,
    );
    // 3 + 1.5 + 0.75 + 0.6  and  0.5 + 0.1 + 0 + 0.125
    expect(e).toEqual({ usd: 6.575, unpricedModels: [], unpricedTokens: 0 });
  });

  it('counts an unknown model’s tokens apart and names it, leaving them out of the money', () => {
    const e = estimateOf(
      [
        { model: 'gpt-5', input: 1_000_000, output: 0, cacheWrite: 0, cacheRead: 0 },
        { model: 'mystery-1', input: 10, output: 5, cacheWrite: 0, cacheRead: 1 },
        { model: null, input: 3, output: 0, cacheWrite: 0, cacheRead: 0 },
      ],
      table,
    );
    expect(e).toEqual({ usd: 1.25, unpricedModels: ['(not named)', 'mystery-1'], unpricedTokens: 19 });
  });
});

describe('the price store', () => {
  const dir = tempDir();
  const db = openStore(join(dir.path, 'p.db'), migrations);
  afterAll(() => {
    db.close();
    dir.remove();
  });

  it('puts the operator’s row over the list’s, prices a new pattern, and removing it brings the list back', () => {
    const prices = new PriceStore(db);
    const listed = prices.table().find((p) => p.model === 'gpt-5');
    expect(listed).toMatchObject({ origin: 'list', input: 1.25, source: 'https://openai.com/api/pricing/' });
    prices.set('gpt-5', { input: 1, output: 8, cacheWrite: 1, cacheRead: 0.1 });
    prices.set('local/*', { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 });
    const again = new PriceStore(db).table();
    expect(again.find((p) => p.model === 'gpt-5')).toMatchObject({
      origin: 'operator',
      input: 1,
      output: 8,
      listPrice: { input: 1.25, output: 10 },
      source: 'https://openai.com/api/pricing/',
    });
    expect(again.find((p) => p.model === 'local/*')).toMatchObject({ origin: 'operator', listPrice: null });
    prices.set('gpt-5', null);
    expect(prices.table().find((p) => p.model === 'gpt-5')).toMatchObject({ origin: 'list', input: 1.25 });
    expect(
      prices
        .table()
        .filter((p) => p.origin === 'operator')
        .map((p) => p.model),
    ).toEqual(['local/*']);
  });
});
