// Lint rules, including the house's layer rules (see docs/architecture.md):
//   by path (eslint/layers.js): shared imports only shared; main/core never imports the shells
//   (main/electron, main/host, main/cli, main/cli.ts, main/serve.ts, renderer, preload);
//   renderer never imports main or preload; main/core's production files never import test/ or e2e/;
//   no vitest test imports e2e/ (Playwright's own code);
//   by package: main/core and shared never import electron; renderer and shared never import a Node module.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { layerRule } from './eslint/layers.js';

const nodeModules = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
const serverOnlyPackages = ['better-sqlite3', 'dockerode', '@napi-rs/keyring', '@nats-io/*', 'electron'];

const noElectron = {
  paths: [
    {
      name: 'electron',
      message: 'main/core and shared stay portable: reach Electron through a port (Keychain, Notifier, AppPaths).',
    },
  ],
  patterns: [{ group: ['electron/*'], message: 'main/core and shared never import electron.' }],
};
const noNode = {
  paths: nodeModules.map((name) => ({ name, message: 'renderer and shared run in the browser: no Node modules.' })),
  patterns: [
    {
      group: ['node:*', ...serverOnlyPackages],
      message: 'renderer and shared run in the browser: no Node or server-only modules.',
    },
  ],
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'test-results/**',
      'playwright-report/**',
      'bench/results/**',
      'main/lint-fixtures/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.js', '**/*.mjs'],
    plugins: { nexus: { rules: { layers: layerRule } } },
    rules: { 'nexus/layers': 'error' },
  },
  { files: ['main/core/**/*.ts'], rules: { 'no-restricted-imports': ['error', noElectron] } },
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [...noElectron.paths, ...noNode.paths], patterns: [...noElectron.patterns, ...noNode.patterns] },
      ],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    ignores: ['renderer/vite.config.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: { 'no-restricted-imports': ['error', noNode] },
  },
);
