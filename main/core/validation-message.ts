import type { z } from 'zod';

/** At most this many issues are named in one message (the first ones, unknown fields first). */
const MAX_ISSUES = 5;

/**
 * A zod verdict in words that name what is wrong: `unknown field "decision"`, `field "secretId" —
 * expected string, received number`. A field's name is never followed by `:` or `=`, so the
 * redactor (which masks the value after a secret-looking `name: value`, e.g. `key: "…"` or
 * `token=…`) keeps every name readable, while a secret the input carried — a registered value or a
 * token shape, even as an unknown key's name — is still masked when the message leaves core.
 */
export function describeIssues(error: z.ZodError, subject = 'input'): string {
  const unknownFirst = [...error.issues].sort(
    (a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'),
  );
  return unknownFirst
    .slice(0, MAX_ISSUES)
    .map((issue) => describeIssue(issue, subject))
    .join('; ');
}

function describeIssue(issue: z.core.$ZodIssue, subject: string): string {
  const where = issue.path.length ? `field ${JSON.stringify(issue.path.map(String).join('.'))}` : subject;
  if (issue.code === 'unrecognized_keys') {
    const names = issue.keys.map((k) => JSON.stringify(k)).join(', ');
    const what = `unknown ${issue.keys.length === 1 ? 'field' : 'fields'} ${names}`;
    return issue.path.length ? `${what} in ${where}` : what;
  }
  return `${where} — ${withoutLeadingLabel(issue.message)}`;
}

/** zod's "Invalid input: expected string" says "Invalid input" twice once it is named; keep the rest. */
const withoutLeadingLabel = (message: string): string => message.replace(/^Invalid (?:input|option): /, '');
