/**
 * Runs every bench/*.bench.ts (or the ones named on the command line), prints each figure as a
 * ratio to its baseline measured in the same run, and writes bench/results/summary.json.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { print, type Benchmark, type Figure } from './lib';

const dir = join(process.cwd(), 'bench');
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

const figures: Figure[] = [];
const failures: { file: string; error: string }[] = [];
for (const file of files) {
  console.log(`# ${file}`);
  try {
    const mod = (await import(pathToFileURL(join(dir, file)).href)) as { default: Benchmark };
    for (const f of await mod.default()) {
      print(f);
      figures.push(f);
    }
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    console.log(`  failed: ${error}`);
    failures.push({ file, error });
  }
}
mkdirSync(join(dir, 'results'), { recursive: true });
const out = join(dir, 'results', 'summary.json');
writeFileSync(out, JSON.stringify({ at: new Date().toISOString(), node: process.version, figures, failures }, null, 2));
console.log(`wrote ${out}`);
process.exit(failures.length ? 1 : 0);
