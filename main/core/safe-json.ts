/** JSON text read where bad JSON is an answer, not a throw: the value, or null when the text is not JSON. */
export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
