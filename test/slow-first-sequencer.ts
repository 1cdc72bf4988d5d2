import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Long files first, so the last file a worker starts is a short one. On a clean clone vitest has no durations
 * cached and starts the largest files first, but the longest here are short files that run a real agent CLI
 * (e.g. agents/opencode/real-opencode.docker.test.ts, ~17 lines and ~10 minutes): started last they would be the
 * run's tail. Within a weight the base order holds (cached durations, else size).
 */
const WEIGHTS: readonly [RegExp, number][] = [
  [/\/agents\/[a-z-]+\/real-[a-z-]+\.docker\.test\.ts$/, 5],
  [/(\.fault\.docker|acp-clis\.docker|remote-[a-z-]+\.docker|sessions\.docker|session-tasks\.docker)\.test\.ts$/, 4],
  [/\.docker\.test\.ts$/, 3],
  [/\.(keychain|mcp|browser)\.test\.ts$/, 2],
];

const weight = (spec: TestSpecification): number => WEIGHTS.find(([re]) => re.test(spec.moduleId))?.[1] ?? 0;

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    return [...base].sort((a, b) => weight(b) - weight(a));
  }
}
