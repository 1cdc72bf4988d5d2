import type { z } from 'zod';

/**
 * A minimal valid value of a zod 4 schema, made by walking its definition (`schema._zod.def`):
 * required object fields only, the first enum member, an empty array, and for strings and numbers
 * the first of a few plain candidates the field's own checks (length, pattern, format) accept.
 * `full` fills optional fields too, for an object whose refinement wants one of them.
 * Returns undefined when no value was found; the caller checks the result against the schema.
 */
export function validValueOf(schema: z.ZodType, full = false): unknown {
  return valueOf(schema, full, 0);
}

const STRINGS = [
  'nexus-check',
  'a',
  'check1',
  'nexus check value',
  'https://example.com/nexus-check.git',
  'ssh://nexus@127.0.0.1:22',
  'tcp://127.0.0.1:2376',
  'check@example.com',
  '00000000-0000-4000-8000-000000000000',
  '2026-01-01T00:00:00.000Z',
  'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  ...[8, 16, 20, 32, 43, 64, 100].map((n) => 'a'.repeat(n)),
];
const NUMBERS = [1, 0, 10, 60, 100, 1000, 0.5, -1];

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  options?: z.ZodType[];
  entries?: Record<string, string | number>;
  values?: unknown[];
  element?: z.ZodType;
  items?: z.ZodType[];
  in?: z.ZodType;
  left?: z.ZodType;
  right?: z.ZodType;
  getter?: () => z.ZodType;
}

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
const isOptional = (s: z.ZodType): boolean => (s as unknown as { _zod: { optin?: string } })._zod.optin === 'optional';
const accepts = (s: z.ZodType, v: unknown): boolean => s.safeParse(v).success;

function valueOf(schema: z.ZodType, full: boolean, depth: number): unknown {
  if (depth > 20) return undefined;
  const def = defOf(schema);
  const inner = (s: z.ZodType | undefined): unknown => (s ? valueOf(s, full, depth + 1) : undefined);
  switch (def.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(def.shape ?? {})) {
        if (isOptional(field) && !full) continue;
        const v = inner(field);
        if (v !== undefined) out[key] = v;
      }
      return out;
    }
    case 'string':
      return STRINGS.find((c) => accepts(schema, c));
    case 'number':
    case 'int':
      return NUMBERS.find((c) => accepts(schema, c));
    case 'bigint':
      return 1n;
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'enum':
      return Object.values(def.entries ?? {})[0];
    case 'literal':
      return def.values?.[0];
    case 'optional':
    case 'nonoptional':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
      return inner(def.innerType);
    case 'nullable':
      return full ? inner(def.innerType) : null;
    case 'union':
      for (const option of def.options ?? []) {
        const v = inner(option);
        if (v !== undefined && accepts(option, v)) return v;
      }
      return undefined;
    case 'array': {
      if (accepts(schema, [])) return [];
      // The fewest items the schema takes (a `.min(n)` makes one too few a refusal of its own).
      const item = inner(def.element);
      for (let n = 1; n <= 10; n++) {
        const items = Array.from({ length: n }, () => item);
        if (accepts(schema, items)) return items;
      }
      return [item];
    }
    case 'tuple':
      return (def.items ?? []).map((i) => inner(i));
    case 'record':
      return {};
    case 'pipe':
      return inner(def.in);
    case 'lazy':
      return inner(def.getter?.());
    case 'intersection': {
      const l = inner(def.left);
      const r = inner(def.right);
      return typeof l === 'object' && typeof r === 'object' ? { ...l, ...r } : l;
    }
    case 'date':
      return new Date(0);
    default:
      // string formats (email, url, uuid, …) are their own def types in zod 4
      if (STRINGS.some((c) => accepts(schema, c))) return STRINGS.find((c) => accepts(schema, c));
      return undefined;
  }
}
