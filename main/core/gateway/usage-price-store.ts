import type { ModelPrice, TokenPrice } from '../../../shared/contract/usage';
import type { Db } from '../store';
import { LIST_PRICES } from './price-list';

const COLUMNS = `model, input_usd AS input, output_usd AS output, cache_write_usd AS cacheWrite,
  cache_read_usd AS cacheRead`;

/**
 * The price table: the shipped list prices (price-list.ts) with the operator's rows (table model_prices, migration 033)
 * over them. Read on every usage report, so it is kept in memory and read again only after a change.
 */
export class PriceStore {
  private cached: ModelPrice[] | null = null;

  constructor(private readonly db: Db) {}

  /** Every price, the operator's over the list's of the same pattern, sorted by model. */
  table(): ModelPrice[] {
    if (this.cached) return this.cached;
    const own = this.db.prepare(`SELECT ${COLUMNS} FROM model_prices`).all() as (TokenPrice & { model: string })[];
    const list = new Map(LIST_PRICES.map((p) => [p.model, p]));
    const rows = new Map<string, ModelPrice>();
    for (const { model, source, asOf, ...price } of LIST_PRICES)
      rows.set(model, { model, ...price, origin: 'list', source, asOf, listPrice: null });
    for (const { model, ...price } of own) {
      const l = list.get(model);
      rows.set(model, {
        model,
        ...price,
        origin: 'operator',
        source: l?.source ?? null,
        asOf: l?.asOf ?? null,
        listPrice: l ? { input: l.input, output: l.output, cacheWrite: l.cacheWrite, cacheRead: l.cacheRead } : null,
      });
    }
    this.cached = [...rows.values()].sort((a, b) => a.model.localeCompare(b.model));
    return this.cached;
  }

  /** Sets the operator's price for a pattern; null removes the operator's row (the list's, if any, applies again). */
  set(model: string, price: TokenPrice | null): void {
    if (price === null) this.db.prepare('DELETE FROM model_prices WHERE model = ?').run(model);
    else
      this.db
        .prepare(
          `INSERT INTO model_prices (model, input_usd, output_usd, cache_write_usd, cache_read_usd, updated_at)
           VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT(model) DO UPDATE SET input_usd = excluded.input_usd, output_usd = excluded.output_usd,
             cache_write_usd = excluded.cache_write_usd, cache_read_usd = excluded.cache_read_usd,
             updated_at = excluded.updated_at`,
        )
        .run(model, price.input, price.output, price.cacheWrite, price.cacheRead, new Date().toISOString());
    this.cached = null;
  }
}
