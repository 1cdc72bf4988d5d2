// Prints one closing line for the whole run, "N passed, N failed, N skipped", from the JSON reports
// of vitest and Playwright, and exits non-zero when anything failed or a report is missing.
import { existsSync, readFileSync } from 'node:fs';

let passed = 0,
  failed = 0,
  skipped = 0,
  missing = [];
const read = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : (missing.push(file), null));

// The keychain run and the no-keychain tier (vitest.nokeychain.config.ts), each its own vitest report.
for (const file of ['test-results/vitest.json', 'test-results/vitest-nokeychain.json']) {
  const unit = read(file);
  if (!unit) continue;
  passed += unit.numPassedTests;
  failed += unit.numFailedTests + (unit.numFailedTestSuites ?? 0) - 0;
  skipped += unit.numPendingTests + unit.numTodoTests;
}
const e2e = read('test-results/e2e.json');
if (e2e) {
  passed += e2e.stats.expected + (e2e.stats.flaky ?? 0);
  failed += e2e.stats.unexpected;
  skipped += e2e.stats.skipped;
}
for (const f of missing) console.log(`missing report: ${f}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || missing.length > 0 || passed === 0 ? 1 : 0);
