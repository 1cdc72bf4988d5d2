// The house's layer rule, by path (like VS Code's code-layering): every import specifier that names a
// file in the repo — relative or absolute — is resolved and checked against the importing file's layer.
// Package imports are left to no-restricted-imports (see eslint.config.js).
import fs from 'node:fs';
import path from 'node:path';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));

// Paths are repo-relative, without extension; an entry matches itself and everything under it.
// Every layer a file is in applies (`tests: false` = production files only, `tests: true` = vitest tests only).
const shells = ['main/electron', 'main/host', 'main/cli', 'main/serve', 'renderer', 'preload'];
export const layers = [
  { name: 'shared', files: ['shared'], allow: ['shared'] },
  { name: 'main/core', files: ['main/core'], deny: shells },
  { name: 'main/core', files: ['main/core'], tests: false, deny: ['test', 'e2e'] },
  { name: 'renderer', files: ['renderer'], deny: ['main', 'preload'] },
  // The Docker mechanisms sit below the features that use them (workspaces, sessions, engines, …): they know
  // core's basics and, until agent kinds declare their own mounts, the agent CLIs' mount points.
  {
    name: 'main/core/docker',
    files: ['main/core/docker'],
    tests: false,
    allow: ['main/core/docker', 'shared', 'main/core/disposable', 'main/core/log', 'main/core/events', 'main/core/app'],
  },
  {
    name: 'a vitest test',
    files: ['main', 'shared', 'preload', 'renderer', 'resources', 'test'],
    tests: true,
    deny: ['e2e'],
  },
];

// Every folder of main/core is a room with a public face: a production file outside it imports it only through its
// index.ts (docs/architecture.md, "Rooms and faces"); tests may reach inside to test the parts. Read from the
// tree, so a new folder has a face from its first file.
export const faces = fs
  .readdirSync(path.join(root, 'main/core'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => `main/core/${e.name}`);
const product = ['main', 'shared', 'renderer', 'preload', 'resources'];

const within = (file, entry) => file === entry || file.startsWith(`${entry}/`);
const repoPath = (abs) => path.relative(root, abs).split(path.sep).join('/');
const stripExt = (p) => p.replace(/\.(d\.)?[mc]?[jt]sx?$/, '');
const isTest = (file) => /\.test$/.test(stripExt(file));
const applies = (layer, file) =>
  layer.files.some((entry) => within(file, entry)) && (layer.tests === undefined || layer.tests === isTest(file));

/** The face a production file bypasses when it imports another folder's internals. */
function bypassedFace(from, target) {
  if (isTest(from) || !product.some((entry) => within(from, entry))) return undefined;
  const face = faces.find((f) => within(target, f) && !within(from, f));
  return face && target !== face && target !== `${face}/index` ? face : undefined;
}

function violation(layer, target) {
  if (layer.allow && !layer.allow.some((entry) => within(target, entry))) {
    return `${layer.name} imports only ${layer.allow.join(', ')}`;
  }
  const denied = layer.deny?.find((entry) => within(target, entry));
  return denied ? `${layer.name} never imports ${denied}` : undefined;
}

export const layerRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports follow the layer table in docs/architecture.md, by resolved path.' },
    schema: [],
  },
  create(context) {
    const from = repoPath(context.filename);
    const mine = layers.filter((l) => applies(l, from));
    const check = (node) => {
      const spec = node?.type === 'Literal' && typeof node.value === 'string' ? node.value : undefined;
      if (!spec || !(spec.startsWith('.') || spec.startsWith('/'))) return;
      const target = stripExt(repoPath(path.resolve(path.dirname(context.filename), spec)));
      const face = bypassedFace(from, target);
      const rule =
        mine.map((layer) => violation(layer, target)).find(Boolean) ??
        (face ? `${face} is imported through its face, ${face}/index.ts` : undefined);
      if (rule) {
        context.report({
          node,
          message: `Layer rule: ${rule} (this imports ${target}); see docs/architecture.md.`,
        });
      }
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      TSImportType: (node) => check(node.source ?? node.argument?.literal),
      TSExternalModuleReference: (node) => check(node.expression),
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require') check(node.arguments[0]);
      },
    };
  },
};
