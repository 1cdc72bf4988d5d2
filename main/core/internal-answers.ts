/**
 * The in-process announcement of an `internal` answer (an error nobody typed): every place that
 * turns a failure into `internal` calls `announceInternal`. Nothing listens in production, so it
 * costs one property read; the test suite listens and fails a test that produced one it did not
 * expect (test/helpers/internal-alarm.ts), because `internal` means a bug, never an answer.
 */
export interface InternalAnswer {
  /** The operation (or tool, or transport) that answered `internal`. */
  operation: string;
  message: string;
}

export type InternalListener = (answer: InternalAnswer) => void;

// On globalThis, not in module state: a test file and the core it opens may load this module twice.
const LISTENER = Symbol.for('nexus.internalAnswerListener');
type Holder = { [LISTENER]?: InternalListener };

export function announceInternal(answer: InternalAnswer): void {
  (globalThis as Holder)[LISTENER]?.(answer);
}

/** Sets the one listener (undefined removes it). */
export function listenForInternal(listener: InternalListener | undefined): void {
  (globalThis as Holder)[LISTENER] = listener;
}
