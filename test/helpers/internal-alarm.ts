import { listenForInternal, type InternalAnswer } from '../../main/core/internal-answers';

/**
 * The suite's alarm for `internal` answers: every one an in-process core gives during a test is
 * kept here, and test/helpers/internal-alarm-setup.ts fails the test unless it said it expected
 * it with `expectInternal`. `internal` is what an unexpected error becomes: a bug, not an answer.
 */
interface Heard extends InternalAnswer {
  expected: boolean;
}

const heard: Heard[] = [];

export function startInternalAlarm(): void {
  listenForInternal((answer) => heard.push({ ...answer, expected: false }));
}

/**
 * A test that provokes an `internal` on purpose says so: marks every `internal` of `operation`
 * (a name, or a pattern) heard so far as expected and returns them; throws when there was none.
 */
export function expectInternal(operation: string | RegExp): InternalAnswer[] {
  const matches = (name: string): boolean =>
    typeof operation === 'string' ? name === operation : operation.test(name);
  const found = heard.filter((h) => matches(h.operation));
  if (found.length === 0) {
    const others = heard.map((h) => h.operation).join(', ') || 'none';
    throw new Error(`expected an internal answer of ${String(operation)}; heard: ${others}`);
  }
  for (const h of found) h.expected = true;
  return found.map(({ operation: op, message }) => ({ operation: op, message }));
}

/** The unexpected `internal` answers heard since the last call, and forgets everything heard. */
export function takeUnexpectedInternals(): InternalAnswer[] {
  const unexpected = heard.filter((h) => !h.expected).map(({ operation, message }) => ({ operation, message }));
  heard.length = 0;
  return unexpected;
}

/** The failure a test gets for them: which operations, and their messages (with the log reference). */
export function describeInternals(answers: InternalAnswer[], when: string): string {
  const lines = answers.map((a) => `  ${a.operation}: ${a.message}`);
  return [
    `${answers.length} operation(s) answered internal ${when}, unexpected (a bug; a test that provokes one says expectInternal(op)):`,
    ...lines,
  ].join('\n');
}
