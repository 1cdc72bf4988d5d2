/**
 * Turns free text into safe FTS5 queries: each word becomes a quoted term (so FTS operators,
 * quotes and column filters typed by an agent are plain words). `all` needs every word (precise,
 * cheap); `any` needs one of them (recall). Searches try `all` first and fall back to `any`.
 */
export function ftsQueries(text: string): { all: string; any: string } | null {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  const unique = [...new Set(words.map((w) => w.toLowerCase()))].slice(0, 32);
  if (!unique.length) return null;
  const terms = unique.map((w) => `"${w}"`);
  return { all: terms.join(' AND '), any: terms.join(' OR ') };
}

/** One search statement, ranked (`ORDER BY rank`) or not; `match` is an FTS5 query from `ftsQueries`. */
export type FtsSearch<T> = (match: string, limit: number, ranked: boolean) => T[];

/**
 * Runs `search` with every word required; only when that finds nothing, with any word (bm25 over
 * many matches is the slow path). bm25 reads each term's whole doclist for its weights, so the
 * precise query first asks, unranked, for two rows: with one match there is nothing to order.
 */
export function searchAllThenAny<T>(text: string, limit: number, search: FtsSearch<T>): T[] {
  const q = ftsQueries(text);
  if (!q) return [];
  const probe = search(q.all, 2, false);
  if (probe.length === 1) return probe;
  const precise = probe.length > 0 ? search(q.all, limit, true) : [];
  if (precise.length > 0 || q.all === q.any) return precise;
  return search(q.any, limit, true);
}
