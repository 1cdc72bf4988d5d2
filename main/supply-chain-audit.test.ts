import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../test/helpers/core';
import { tempDir } from '../test/helpers/temp-dir';
// @ts-expect-error -- a plain .mjs script (scripts/test.sh runs it with node), no type declarations
import { auditVerdict } from '../scripts/audit-check.mjs';

type Verdict = { ok: boolean; unanswered?: boolean; problems: string[]; allowed: string[]; stale: string[] };
const verdict = auditVerdict as (report: unknown, allowlist: unknown, today?: Date) => Verdict;

/** An `npm audit --json` report (npm 7+) with one advisory on one package. */
const reportWith = (severity: string, ghsa = 'GHSA-aaaa-bbbb-cccc') => ({
  auditReportVersion: 2,
  vulnerabilities: {
    'some-lib': {
      name: 'some-lib',
      severity,
      via: [
        {
          source: 1234,
          name: 'some-lib',
          title: 'Prototype pollution',
          url: `https://github.com/advisories/${ghsa}`,
          severity,
        },
      ],
    },
    'uses-some-lib': { name: 'uses-some-lib', severity, via: ['some-lib'] },
  },
  metadata: {},
});
const entry = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  package: 'some-lib',
  reason: 'Only reached from the build tool, never at run time.',
  reviewBy: '2999-01-01',
  ...extra,
});

// Issue 17, item 7: `npm audit --omit=dev` at high, with a documented allowlist (scripts/audit-check.mjs).
describe('the supply-chain audit gate', () => {
  it('passes a clean report and fails any high or critical advisory not on the allowlist', () => {
    expect(verdict({ vulnerabilities: {} }, { advisories: [] }).ok).toBe(true);
    expect(verdict(reportWith('moderate'), { advisories: [] }).ok).toBe(true);
    for (const severity of ['high', 'critical']) {
      const v = verdict(reportWith(severity), { advisories: [] });
      expect(v.ok).toBe(false);
      expect(v.problems.join('\n')).toMatch(new RegExp(`${severity} GHSA-aaaa-bbbb-cccc in some-lib`));
    }
  });

  it('lets an allowlisted advisory through, and says when an entry no longer matches', () => {
    expect(verdict(reportWith('high'), { advisories: [entry('GHSA-aaaa-bbbb-cccc')] })).toMatchObject({
      ok: true,
      allowed: ['GHSA-aaaa-bbbb-cccc'],
    });
    expect(verdict({ vulnerabilities: {} }, { advisories: [entry('GHSA-gone-gone-gone')] })).toMatchObject({
      ok: true,
      stale: ['GHSA-gone-gone-gone'],
    });
  });

  it('refuses an allowlist entry without a reason or past its review date', () => {
    const noReason = verdict(reportWith('high'), { advisories: [entry('GHSA-aaaa-bbbb-cccc', { reason: '' })] });
    expect(noReason.ok).toBe(false);
    expect(noReason.problems.join('\n')).toMatch(/gives no reason/);
    const expired = verdict(reportWith('high'), {
      advisories: [entry('GHSA-aaaa-bbbb-cccc', { reviewBy: '2020-01-01' })],
    });
    expect(expired.ok).toBe(false);
    expect(expired.problems.join('\n')).toMatch(/past its review date/);
  });

  it('fails when the audit gave no answer (registry error), instead of passing silently', () => {
    const v = verdict({ message: '405 Method Not Allowed', statusCode: 405 }, { advisories: [] });
    expect(v.ok).toBe(false);
    expect(v.problems[0]).toMatch(/npm audit gave no answer: 405/);
    expect(v.unanswered).toBe(true);
  });

  it('runs as scripts/test.sh runs it, on a saved report, with the checked-in allowlist', () => {
    const allowlist = JSON.parse(readFileSync(join(repoRoot, 'audit-allowlist.json'), 'utf8')) as {
      advisories: { id: string; reason: string }[];
    };
    for (const e of allowlist.advisories) expect(e.reason.length, e.id).toBeGreaterThan(10);
    const dir = tempDir('nexus-audit-');
    try {
      const file = join(dir.path, 'report.json');
      writeFileSync(file, JSON.stringify(reportWith('critical', 'GHSA-zzzz-zzzz-zzzz')));
      const run = () =>
        execFileSync('node', ['scripts/audit-check.mjs', '--report', file], { cwd: repoRoot, stdio: 'pipe' });
      expect(run).toThrow(/Command failed/);
      writeFileSync(file, JSON.stringify({ vulnerabilities: {} }));
      expect(run().toString()).toMatch(/no high or critical advisory outside the allowlist/);
    } finally {
      dir.remove();
    }
  });
});
