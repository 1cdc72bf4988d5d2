/**
 * Turns free text into a safe FTS5 query: each word becomes a quoted term (so FTS operators,
 * quotes and column filters typed by an agent are plain words), joined by OR and ranked by bm25.
 */
export function ftsQuery(text: string): string | null {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  const unique = [...new Set(words.map((w) => w.toLowerCase()))].slice(0, 32);
  return unique.length ? unique.map((w) => `"${w}"`).join(' OR ') : null;
}
