#!/usr/bin/env node
// Supply chain: `npm audit --omit=dev` at high, with a documented allowlist (audit-allowlist.json).
// Fails on any high or critical advisory of a runtime dependency that the allowlist does not name,
// on an allowlist entry without a reason or past its review date, and when the audit could not run
// at all (a check that cannot answer is not a pass). `--report <file>` reads a saved
// `npm audit --json` report instead of asking the registry.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BLOCKING = new Set(['high', 'critical']);

/** The advisory id npm audit reports: the GHSA id from its URL, else its numeric source. */
const advisoryId = (via) => /GHSA-[\w-]+/.exec(via.url ?? '')?.[0] ?? String(via.source);

/**
 * What the audit report says, against the allowlist: `{ ok, problems, allowed, stale }`.
 * `report` is `npm audit --json` output (npm 7+), `allowlist` the parsed audit-allowlist.json.
 */
export function auditVerdict(report, allowlist, today = new Date()) {
  const problems = [];
  if (!report || typeof report !== 'object' || report.error || !report.vulnerabilities) {
    const why = report?.error?.summary || report?.message || 'no vulnerabilities section in the report';
    return { ok: false, unanswered: true, problems: [`npm audit gave no answer: ${why}`], allowed: [], stale: [] };
  }
  const entries = new Map();
  for (const entry of allowlist?.advisories ?? []) {
    if (typeof entry.id !== 'string' || !entry.id) problems.push('An allowlist entry has no advisory id.');
    else if (typeof entry.reason !== 'string' || entry.reason.trim().length < 10)
      problems.push(`Allowlist entry ${entry.id} gives no reason.`);
    else if (typeof entry.reviewBy !== 'string' || !(new Date(entry.reviewBy) >= today))
      problems.push(`Allowlist entry ${entry.id} is past its review date (${entry.reviewBy ?? 'none'}).`);
    else entries.set(entry.id, entry);
  }
  const found = new Map();
  for (const [pkg, vuln] of Object.entries(report.vulnerabilities)) {
    for (const via of vuln.via ?? []) {
      if (typeof via !== 'object' || !BLOCKING.has(via.severity)) continue;
      const id = advisoryId(via);
      if (!found.has(id)) found.set(id, { id, pkg, severity: via.severity, title: via.title ?? '' });
    }
  }
  const allowed = [];
  for (const f of found.values()) {
    if (entries.has(f.id)) allowed.push(f.id);
    else
      problems.push(
        `${f.severity} ${f.id} in ${f.pkg}: ${f.title} (fix it, or add it to audit-allowlist.json with a reason)`,
      );
  }
  const stale = [...entries.keys()].filter((id) => !found.has(id));
  return { ok: problems.length === 0, problems, allowed, stale };
}

function runAudit(root) {
  try {
    return execFileSync('npm', ['audit', '--omit=dev', '--json'], { cwd: root, encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    // npm audit exits non-zero when it finds anything; its JSON is still on stdout.
    if (e.stdout) return e.stdout;
    throw e;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const at = process.argv.indexOf('--report');
  const text = at > 0 ? readFileSync(process.argv[at + 1], 'utf8') : runAudit(root);
  let report;
  try {
    report = JSON.parse(text);
  } catch {
    report = { message: 'npm audit printed no JSON' };
  }
  const allowlist = JSON.parse(readFileSync(join(root, 'audit-allowlist.json'), 'utf8'));
  const v = auditVerdict(report, allowlist);
  for (const id of v.allowed) console.log(`audit: ${id} allowed by audit-allowlist.json`);
  for (const id of v.stale) console.log(`audit: allowlist entry ${id} no longer matches anything; remove it`);
  for (const p of v.problems) console.error(`audit: ${p}`);
  if (v.unanswered) {
    // Exit 3, not 1: the check did not run (e.g. a registry mirror that refuses the advisory endpoint).
    console.error('audit: NOT RUN — no advisory data from the registry; this is not a pass');
    process.exit(3);
  }
  console.log(v.ok ? 'audit: no high or critical advisory outside the allowlist' : 'audit: FAILED');
  process.exit(v.ok ? 0 : 1);
}
