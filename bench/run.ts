import { errorMessage } from '../shared/errors';
/**
 * Runs every bench/*.bench.ts (or the ones named on the command line), prints each figure as a
 * ratio to its baseline measured in the same run, and writes bench/results/summary.json. A run of
 * some benches replaces their figures in the summary and keeps the others' from earlier runs (each
 * figure names its file and the time it was measured).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { print, type Benchmark, type Figure } from './lib';

const dir = join(process.cwd(), 'bench');
/** Names' beginnings: `review` is review.bench.ts alone, not preview.bench.ts too. */
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort();

type Recorded = Figure & { file: string; at: string };
const figures: Recorded[] = [];
const failures: { file: string; error: string }[] = [];
for (const file of files) {
  console.log(`# ${file}`);
  try {
    const mod = (await import(pathToFileURL(join(dir, file)).href)) as { default: Benchmark };
    for (const f of await mod.default()) {
      print(f);
      figures.push({ ...f, file, at: new Date().toISOString() });
    }
  } catch (e) {
    const error = errorMessage(e);
    console.log(`  failed: ${error}`);
    failures.push({ file, error });
  }
}
mkdirSync(join(dir, 'results'), { recursive: true });
const out = join(dir, 'results', 'summary.json');
const earlier = existsSync(out)
  ? ((JSON.parse(readFileSync(out, 'utf8')) as { figures?: Recorded[] }).figures ?? []).filter(
      (f) => typeof f.file === 'string' && !files.includes(f.file),
    )
  : [];
const all = [...earlier, ...figures].sort((a, b) => a.file.localeCompare(b.file));
writeFileSync(
  out,
  JSON.stringify({ at: new Date().toISOString(), node: process.version, figures: all, failures }, null, 2),
);
console.log(`wrote ${out}`);
process.exit(failures.length ? 1 : 0);
