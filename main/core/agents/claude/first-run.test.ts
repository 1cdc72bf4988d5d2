import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/temp-dir';
import { FIRST_RUN_SCRIPT, firstRunPayload, type FirstRunOptions } from './first-run';

/** Runs the in-container merge here, with HOME at a temp dir and the API key file where the test says. */
function seed(home: string, options: FirstRunOptions): void {
  const payload = firstRunPayload(options);
  execFileSync(process.execPath, ['-e', FIRST_RUN_SCRIPT], {
    input: JSON.stringify(payload),
    env: { ...process.env, HOME: home },
  });
}
const readJson = (f: string): Record<string, unknown> => JSON.parse(readFileSync(f, 'utf8')) as Record<string, unknown>;

describe('agent first-run state', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir('nexus-first-run-')));
  afterEach(() => dir.remove());

  it('passes onboarding, trusts the repository root, allows platform tools and turns auto-update off', () => {
    const home = join(dir.path, 'home');
    seed(home, { repoDir: '/workspace' });
    const g = readJson(join(home, '.claude.json'));
    expect(g).toMatchObject({
      hasCompletedOnboarding: true,
      autoUpdates: false,
      projects: { '/workspace': { hasTrustDialogAccepted: true } },
    });
    const s = readJson(join(home, '.claude', 'settings.json'));
    expect(s).toMatchObject({
      env: { DISABLE_AUTOUPDATER: '1' },
      permissions: { allow: ['mcp__nexus', 'mcp__nexus-delegated'] },
    });
    expect(s).not.toHaveProperty('skipDangerousModePermissionPrompt');
    // The one sign-in a session has: its gateway credential, from the file its launch names.
    expect(s.apiKeyHelper).toBe('cat "$NEXUS_GATEWAY_KEY_FILE"');
  });

  it("keeps the operator's keys, hooks and rules, and is the same after a second run", () => {
    const home = join(dir.path, 'home');
    mkdirSync(join(home, '.claude'), { recursive: true });
    writeFileSync(
      join(home, '.claude.json'),
      JSON.stringify({ theme: 'light', projects: { '/workspace': { allowedTools: ['Bash(ls)'] }, '/other': {} } }),
    );
    const theirs = { matcher: '', hooks: [{ type: 'command', command: 'echo mine' }] };
    writeFileSync(
      join(home, '.claude', 'settings.json'),
      JSON.stringify({
        model: 'opus',
        env: { FOO: 'bar' },
        permissions: { allow: ['Bash(git status)'], deny: ['WebFetch'] },
        hooks: { Stop: [theirs] },
      }),
    );
    const hooks = {
      entries: { Stop: [{ hooks: [{ type: 'command', command: 'node /t/nexus-hook.cjs a b' }] }] },
      marker: 'nexus-hook.cjs',
    };
    const opts = { repoDir: '/workspace', bypass: true, hooks };
    seed(home, opts);
    const once = [
      readFileSync(join(home, '.claude.json'), 'utf8'),
      readFileSync(join(home, '.claude', 'settings.json'), 'utf8'),
    ];
    seed(home, opts);
    expect([
      readFileSync(join(home, '.claude.json'), 'utf8'),
      readFileSync(join(home, '.claude', 'settings.json'), 'utf8'),
    ]).toEqual(once);

    expect(readJson(join(home, '.claude.json'))).toMatchObject({
      theme: 'light',
      projects: { '/workspace': { allowedTools: ['Bash(ls)'], hasTrustDialogAccepted: true }, '/other': {} },
    });
    const s = readJson(join(home, '.claude', 'settings.json'));
    expect(s).toMatchObject({
      model: 'opus',
      env: { FOO: 'bar', DISABLE_AUTOUPDATER: '1' },
      permissions: { allow: ['Bash(git status)', 'mcp__nexus', 'mcp__nexus-delegated'], deny: ['WebFetch'] },
      skipDangerousModePermissionPrompt: true,
    });
    expect((s.hooks as Record<string, unknown[]>).Stop).toEqual([theirs, ...hooks.entries.Stop]);
  });

  it("makes the apiKeyHelper Nexus's, over an operator's own: it prints the session's gateway credential", () => {
    const home = join(dir.path, 'home');
    mkdirSync(join(home, '.claude'), { recursive: true });
    const settings = join(home, '.claude', 'settings.json');
    writeFileSync(settings, JSON.stringify({ apiKeyHelper: '/usr/local/bin/my-key' }));
    seed(home, { repoDir: '/workspace' });
    expect(readJson(settings).apiKeyHelper).toBe(firstRunPayload({ repoDir: '/' }).apiKeyHelper);
    // The helper, run by a shell with the session's environment, prints the file's content.
    writeFileSync(join(dir.path, 'gateway-key'), 'nxg_session');
    const out = execFileSync('sh', ['-c', String(readJson(settings).apiKeyHelper)], {
      env: { ...process.env, NEXUS_GATEWAY_KEY_FILE: join(dir.path, 'gateway-key') },
      encoding: 'utf8',
    });
    expect(out).toBe('nxg_session');
  });
});
