import fc from 'fast-check';
import type { z } from 'zod';

/** Values that break parsers in practice: wrong types, huge or odd numbers, path and control tricks. */
const hostile = fc.oneof(
  fc.constantFrom('', ' ', '../../etc/passwd', 'a\u0000b', '\u202e', '__proto__', 'constructor', '%00', '\r\n'),
  fc.constantFrom(-1, 0, 1e308, -1e308, 2 ** 53 + 1, 0.5, Number.MAX_SAFE_INTEGER),
  fc.constantFrom(null, true, false, [], {}, [[[[[]]]]], { __proto__: { admin: true } }),
  fc.string({ minLength: 1000, maxLength: 5000 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Keys of an object schema (through optional/default wrappers), for near-miss inputs. */
function keysOf(schema: z.ZodType): string[] {
  const def = (schema as { def?: { innerType?: z.ZodType; in?: z.ZodType } }).def;
  const shape = (schema as { shape?: Record<string, unknown> }).shape;
  if (shape && typeof shape === 'object') return Object.keys(shape);
  if (def?.innerType) return keysOf(def.innerType);
  if (def?.in) return keysOf(def.in);
  return [];
}

/** A JSON value as it arrives after the wire (JSON round trip), or undefined when it has no JSON form. */
const overTheWire = (v: unknown): unknown => {
  const text = JSON.stringify(v);
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
};

/**
 * JSON inputs that `schema` refuses: random JSON, near misses that use the schema's own keys with
 * hostile values, and non-objects. `absent` is what the boundary makes of a missing value (e.g. the
 * dispatcher reads a missing input as `{}`), so an input that would parse after that is left out.
 */
export function malformedFor(schema: z.ZodType, absent: unknown = undefined): fc.Arbitrary<unknown> {
  const keys = keysOf(schema);
  const nearMiss =
    keys.length > 0
      ? fc.dictionary(fc.constantFrom(...keys), hostile, { minKeys: 1, maxKeys: keys.length + 1 })
      : hostile;
  return fc
    .oneof(fc.jsonValue({ maxDepth: 4 }), nearMiss, hostile)
    .map(overTheWire)
    .filter((v) => !schema.safeParse(v ?? absent).success);
}

/** Bodies that are not JSON at all (never empty: an empty body is a missing input). */
export const notJson = fc
  .oneof(
    fc.string({ minLength: 1 }),
    fc.uint8Array({ minLength: 1, maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1')),
  )
  .filter((s) => {
    try {
      JSON.parse(s);
      return false;
    } catch {
      return true;
    }
  });
