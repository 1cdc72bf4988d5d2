import { afterAll, afterEach } from 'vitest';
import { describeInternals, startInternalAlarm, takeUnexpectedInternals } from './internal-alarm';

// A vitest setupFiles entry (vitest.config.ts): an `internal` answer an in-process core gave fails the test it
// happened in (or, when a suite's set-up or clean-up gave it, the file), unless the test expected it.
startInternalAlarm();

afterEach(() => {
  const unexpected = takeUnexpectedInternals();
  if (unexpected.length > 0) throw new Error(describeInternals(unexpected, 'during this test (or its set-up)'));
});

afterAll(() => {
  const unexpected = takeUnexpectedInternals();
  if (unexpected.length > 0) throw new Error(describeInternals(unexpected, "in this file's set-up or clean-up"));
});
