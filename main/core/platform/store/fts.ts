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

/** Runs `search` with every word required; only when that finds nothing, with any word (bm25 over many matches is the slow path). */
export function searchAllThenAny<T>(text: string, limit: number, search: (match: string, limit: number) => T[]): T[] {
  const q = ftsQueries(text);
  if (!q) return [];
  const precise = search(q.all, limit);
  if (precise.length > 0 || q.all === q.any) return precise;
  return search(q.any, limit);
}
