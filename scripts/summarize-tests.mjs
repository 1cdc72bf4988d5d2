// Prints one closing line for the whole run, "N passed, N failed, N skipped", from the JSON reports
// of vitest and Playwright, preceded by one entry per failed test (file › name) so the tail of a CI log says what
// broke and why: the first lines of its message, where a test puts its diagnosis (CI shows only the tail of its log).
// Exits non-zero when anything failed or a report is missing. A file counts as failed on its own only when it failed
// outside its tests (an import, a hook).
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

let passed = 0,
  failed = 0,
  skipped = 0;
const missing = [];
const failures = [];
const read = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : (missing.push(file), null));

// The keychain run and the no-keychain tier (vitest.nokeychain.config.ts), each its own vitest report.
for (const file of ['test-results/vitest.json', 'test-results/vitest-nokeychain.json']) {
  const unit = read(file);
  if (!unit) continue;
  passed += unit.numPassedTests;
  failed += unit.numFailedTests;
  skipped += unit.numPendingTests + unit.numTodoTests;
  for (const suite of unit.testResults ?? []) {
    const where = relative(process.cwd(), suite.name);
    const broken = (suite.assertionResults ?? []).filter((t) => t.status === 'failed');
    for (const t of broken) failures.push(`${where} › ${t.fullName ?? t.title}\n    ${why(t.failureMessages?.[0])}`);
    if (suite.status === 'failed' && broken.length === 0) {
      failed++;
      failures.push(`${where} › (the file) ${why(suite.message)}`);
    }
  }
}
const e2e = read('test-results/e2e.json');
if (e2e) {
  passed += e2e.stats.expected + (e2e.stats.flaky ?? 0);
  failed += e2e.stats.unexpected;
  skipped += e2e.stats.skipped;
  const walk = (suite, file) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status !== 'unexpected') continue;
        const error = test.results?.at(-1)?.error?.message;
        failures.push(`${spec.file ?? file} › ${spec.title}\n    ${why(error)}`);
      }
    }
    for (const child of suite.suites ?? []) walk(child, child.file ?? file);
  };
  for (const suite of e2e.suites ?? []) walk(suite, suite.file);
}
for (const f of missing) console.log(`missing report: ${f}`);
for (const f of failures) console.log(`failed: ${f}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || missing.length > 0 || passed === 0 ? 1 : 0);

/** A failure's message without colour codes: its first lines (a stack's frames left out), at most 2,000 characters. */
function why(text) {
  const lines = String(text ?? '')
    .replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '')
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() && !/^\s*at /.test(l));
  return lines.slice(0, 25).join('\n    ').slice(0, 2000);
}
