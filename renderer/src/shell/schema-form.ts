import { useRef, useState } from 'react';
import type { z } from 'zod';

export type FieldErrors = Partial<Record<string, string>>;

/**
 * The contract's own verdict on a form's input: the first message per top-level field, from the
 * operation's zod schema (the rules are never re-typed in the form). An empty text field that the
 * schema needs says so in plain words instead of zod's "expected string to have >=1 characters".
 */
export function fieldErrors(schema: z.ZodType, input: Record<string, unknown>): FieldErrors {
  const parsed = schema.safeParse(input);
  if (parsed.success) return {};
  const errors: FieldErrors = {};
  for (const issue of parsed.error.issues) {
    const field = String(issue.path[0] ?? '');
    if (errors[field] !== undefined) continue;
    const empty = input[field] === '' || input[field] === undefined;
    errors[field] = empty ? 'required' : issue.message;
  }
  return errors;
}

/**
 * A form checked against a contract schema. Messages show from the first attempt to submit on, and
 * follow the input live from then (not on blur: a message appearing as the focus leaves a field
 * would move the button under the pointer). `submit` answers whether the input is valid and, when
 * it is not, moves the focus to the first field with a message.
 */
export function useSchemaForm(schema: z.ZodType, input: Record<string, unknown>) {
  const [attempted, setAttempted] = useState(false);
  const formRef = useRef<HTMLFormElement | null>(null);
  const errors = fieldErrors(schema, input);
  const errorOf = (field: string): string | undefined => (attempted ? errors[field] : undefined);
  const submit = (): boolean => {
    if (Object.keys(errors).length === 0) return true;
    setAttempted(true);
    requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
    return false;
  };
  const reset = (): void => setAttempted(false);
  return { errorOf, submit, reset, formRef };
}
