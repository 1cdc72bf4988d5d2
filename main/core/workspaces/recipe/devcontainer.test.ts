import { describe, expect, it } from 'vitest';
import { parseDevcontainer } from './devcontainer';
import { RecipeError } from './recipe-error';
import { recipeEnv } from './recipe-apply';

const parse = (text: string, file = '.devcontainer/devcontainer.json') => parseDevcontainer(file, text);
const refusal = (text: string): string => {
  try {
    parse(text);
  } catch (e) {
    if (e instanceof RecipeError) return `${e.refusal}: ${e.message}`;
    throw e;
  }
  throw new Error('not refused');
};

describe('devcontainer.json as the recipe', () => {
  it('reads build (paths relative to the file), env, commands, ports and customizations.nexus, with comments', () => {
    const r = parse(`{
      // the repo's image
      "build": { "dockerfile": "Dockerfile", "context": "..", "args": { "V": "1" }, "target": "dev" },
      "containerEnv": { "A": "1" }, "remoteEnv": { "B": "\${containerEnv:A}2" },
      "postCreateCommand": "npm install", "postStartCommand": ["echo", "hi"],
      "forwardPorts": [3000, "db:5432"], "portsAttributes": { "3000": { "label": "web" } },
      "runArgs": ["--privileged"],
      "customizations": { "nexus": { "setup": "npm ci", "run": "npm run dev", "previews": ["/"] }, "vscode": {} },
    }`);
    expect(r.source).toEqual({
      kind: 'build',
      dockerfile: '.devcontainer/Dockerfile',
      context: '.',
      args: { V: '1' },
      target: 'dev',
    });
    expect(r.onCreate).toEqual([{ label: 'postCreateCommand', shell: 'npm install' }]);
    expect(r.onStart).toEqual([{ label: 'postStartCommand', argv: ['echo', 'hi'] }]);
    expect(r.forwardPorts).toEqual([
      { port: 3000, label: 'web' },
      { port: 5432, label: null },
    ]);
    expect(r.nexus).toEqual({ setup: 'npm ci', run: 'npm run dev', egress: [], previews: ['/'] });
    expect(r.ignored).toEqual(['runArgs (the container is created hardened by Nexus)']);
    const notes: string[] = [];
    const env = recipeEnv(
      ['HOME=/home/nexus', 'PATH=/cli/bin:/opt/nexus/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
      { PATH: '/go/bin:/usr/bin' },
      r,
      notes,
    );
    expect(env).toEqual(['HOME=/home/nexus', 'PATH=/cli/bin:/opt/nexus/bin:/go/bin:/usr/bin', 'A=1', 'B=12']);
    expect(notes).toEqual([]);
  });

  it('reads an image, and a file with neither image nor build keeps Nexus’s own image', () => {
    expect(parse('{"image":"debian:12"}', '.devcontainer.json').source).toEqual({ kind: 'image', image: 'debian:12' });
    expect(parse('{"customizations":{"nexus":{"run":"node server.js"}}}').source).toEqual({ kind: 'nexus' });
  });

  it('refuses registry features, compose, paths outside the repository and bad Nexus settings, saying why', () => {
    expect(refusal('{"image":"x","features":{"ghcr.io/devcontainers/features/node:1":{}}}')).toMatch(
      /^features_unreachable: .*ghcr.io.*registry/,
    );
    expect(refusal('{"dockerComposeFile":"c.yml","service":"app"}')).toMatch(/^unsupported: .*Compose/);
    expect(refusal('{"build":{"dockerfile":"Dockerfile","context":"../.."}}')).toMatch(
      /^bad_file: .*outside the repository/,
    );
    expect(refusal('{"customizations":{"nexus":{"setup":"x","colour":"red"}}}')).toMatch(
      /^bad_file: .*customizations\.nexus/,
    );
    expect(refusal('{"image": }')).toMatch(/^bad_file: .*not valid JSON/);
  });

  it('never reads the host’s environment: ${localEnv:…} becomes its default, and Nexus’s own variables stay', () => {
    const r = parse('{"image":"x","containerEnv":{"T":"${localEnv:HOME:none}","HOME":"/root"}}');
    const notes: string[] = [];
    const env = recipeEnv(['HOME=/home/nexus'], {}, r, notes);
    expect(env).toContain('T=none');
    expect(env).toContain('HOME=/home/nexus');
    expect(notes.join(' ')).toMatch(/HOME is Nexus's own.*localEnv/);
  });
});
