import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { repoRoot } from '../../test/helpers/core';

// Type-only imports count: a cycle of types still means two modules each lean on the other, and the
// fix is the same (the type moves to the module that owns the word).
const coreDir = join(repoRoot, 'main/core');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec).replace(/\.js$/, '');
  return [`${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(p));
}

function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const specs: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) specs.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteral(arg)) specs.push(arg.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const lit = node.argument.literal;
      if (ts.isStringLiteral(lit)) specs.push(lit.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specs.flatMap((s) => resolveImport(file, s) ?? []).filter((p) => p.startsWith(`${coreDir}/`));
}

/**
 * Core's rooms: each folder of main/core is one node (its files, tests aside), each file at its top is one of its
 * own. An arrow between two rooms is any import from a file of one to a file of the other.
 */
function roomGraph(files: string[]): Map<string, string[]> {
  const room = (f: string): string => {
    const [first, ...rest] = relative(coreDir, f).split('/');
    return join(coreDir, rest.length > 0 ? first! : first!.replace(/\.ts$/, ''));
  };
  const graph = new Map<string, Set<string>>();
  for (const f of files) {
    const from = room(f);
    const arrows = graph.get(from) ?? new Set<string>();
    for (const to of importsOf(f).map(room)) if (to !== from) arrows.add(to);
    graph.set(from, arrows);
  }
  return new Map([...graph].map(([k, v]) => [k, [...v]]));
}

/** Every strongly connected component of more than one node (or a node importing itself), each as one cycle. */
function importCycles(graph: Map<string, string[]>): string[][] {
  const files = [...graph.keys()];
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const strongConnect = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.includes(v)) cycles.push(cycleThrough(v, new Set(component), graph));
  };
  for (const f of files) if (!index.has(f)) strongConnect(f);
  return cycles.map((c) => c.map((f) => relative(repoRoot, f)));
}

/** One concrete loop from `start` back to itself inside its component (breadth-first, so the shortest). */
function cycleThrough(start: string, component: Set<string>, graph: Map<string, string[]>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        return [...path, start];
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

describe('main/core import graph', () => {
  it('has no import cycles (type-only imports included)', () => {
    const files = sources(coreDir);
    const cycles = importCycles(new Map(files.map((f) => [f, importsOf(f)])));
    expect(cycles.map((c) => c.join(' -> '))).toEqual([]);
  });

  it("has no cycle between core's rooms: no two folders import each other, directly or round about", () => {
    const cycles = importCycles(roomGraph(sources(coreDir)));
    expect(cycles.map((c) => c.join(' -> '))).toEqual([]);
  });

  it('finds a cycle of rooms when there is one (the check bites)', () => {
    const graph = new Map([
      [join(coreDir, 'sessions'), [join(coreDir, 'terminal')]],
      [join(coreDir, 'terminal'), [join(coreDir, 'workspaces')]],
      [join(coreDir, 'workspaces'), [join(coreDir, 'sessions')]],
      [join(coreDir, 'docker'), []],
    ]);
    expect(importCycles(graph).map((c) => c.join(' -> '))).toEqual([
      'main/core/sessions -> main/core/terminal -> main/core/workspaces -> main/core/sessions',
    ]);
  });
});
