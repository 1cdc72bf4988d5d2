// Moves TypeScript modules and rewrites every relative import of them (and their own relative imports).
// Usage: node scripts/move-module.mjs <from> <to> [<from> <to> ...]   (repo-relative .ts/.tsx paths)
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import ts from 'typescript';

const root = process.cwd();
const pairs = [];
for (let i = 2; i < process.argv.length; i += 2)
  pairs.push([path.resolve(process.argv[i]), path.resolve(process.argv[i + 1])]);
const moved = new Map(pairs);
const noExt = (p) => p.replace(/\.(tsx?|mjs|js)$/, '');
const dirs = ['main', 'shared', 'renderer', 'preload', 'resources', 'test', 'bench', 'e2e', 'scripts'];
const files = [];
const walk = (d) => {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist') continue;
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (/\.(tsx?|mts)$/.test(e.name)) files.push(p);
  }
};
for (const d of dirs) if (fs.existsSync(d)) walk(path.resolve(d));
const resolveSpec = (from, spec) => {
  const b = path.resolve(path.dirname(from), spec).replace(/\.js$/, '');
  return [`${b}.ts`, `${b}.tsx`, path.join(b, 'index.ts')].find((p) => fs.existsSync(p));
};
const rel = (fromFile, target, hadJs) => {
  let r = path.relative(path.dirname(fromFile), noExt(target)).split(path.sep).join('/');
  if (!r.startsWith('.')) r = `./${r}`;
  if (r.endsWith('/index')) r = r.slice(0, -6) || '.';
  return hadJs ? `${r}.js` : r;
};
const edits = new Map();
for (const file of files) {
  const text = fs.readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const newFile = moved.get(file) ?? file;
  const repl = [];
  const visit = (n) => {
    let lit;
    if (
      (ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) &&
      n.moduleSpecifier &&
      ts.isStringLiteral(n.moduleSpecifier)
    )
      lit = n.moduleSpecifier;
    else if (
      ts.isCallExpression(n) &&
      (n.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(n.expression) && ['require'].includes(n.expression.text)) ||
        (ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === 'mock')) &&
      n.arguments[0] &&
      ts.isStringLiteral(n.arguments[0])
    )
      lit = n.arguments[0];
    else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal))
      lit = n.argument.literal;
    if (lit && lit.text.startsWith('.')) {
      const target = resolveSpec(file, lit.text);
      if (target && (moved.has(target) || moved.has(file))) {
        const next = rel(newFile, moved.get(target) ?? target, lit.text.endsWith('.js'));
        if (next !== lit.text) repl.push([lit.getStart(sf) + 1, lit.getEnd() - 1, next]);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  if (repl.length || moved.has(file)) {
    let out = text;
    for (const [s, e, t] of repl.sort((a, b) => b[0] - a[0])) out = out.slice(0, s) + t + out.slice(e);
    edits.set(file, out);
  }
}
for (const [from, to] of pairs) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  execFileSync('git', ['mv', path.relative(root, from), path.relative(root, to)]);
}
for (const [file, out] of edits) fs.writeFileSync(moved.get(file) ?? file, out);
console.log(`moved ${pairs.length}, rewrote ${edits.size} files`);
