import { describe, expect, it } from 'vitest';
import { compareLink, parseRemote } from './compare-link';

describe('compareLink', () => {
  it('links GitHub remotes in https, ssh and scp-like forms to the new-PR compare page', () => {
    const want = 'https://github.com/acme/widgets/compare/main...nexus/fix-login?expand=1';
    for (const remote of [
      'https://github.com/acme/widgets.git',
      'https://github.com/acme/widgets',
      'https://github.com/acme/widgets/',
      'git@github.com:acme/widgets.git',
      'ssh://git@github.com/acme/widgets.git',
      'ssh://git@github.com:22/acme/widgets',
      'https://x-access-token@github.com/acme/widgets.git',
    ])
      expect(compareLink(remote, 'main', 'nexus/fix-login'), remote).toEqual({ provider: 'github', url: want });
  });

  it('links GitLab remotes, subgroups included, to the new merge request page', () => {
    const link = compareLink('git@gitlab.com:acme/platform/tools/widgets.git', 'develop', 'nexus/fix');
    expect(link?.provider).toBe('gitlab');
    const url = new URL(link?.url ?? '');
    expect(url.origin + url.pathname).toBe('https://gitlab.com/acme/platform/tools/widgets/-/merge_requests/new');
    expect(url.searchParams.get('merge_request[source_branch]')).toBe('nexus/fix');
    expect(url.searchParams.get('merge_request[target_branch]')).toBe('develop');
    expect(compareLink('https://gitlab.com/acme/platform/widgets', 'main', 'b')?.url).toMatch(
      /^https:\/\/gitlab\.com\/acme\/platform\/widgets\/-\/merge_requests\/new\?/,
    );
  });

  it('keeps the web port and scheme of a self-hosted https/http server, not an ssh port', () => {
    expect(compareLink('http://gitlab.internal.example:8080/team/app.git', 'main', 'b')?.url).toMatch(
      /^http:\/\/gitlab\.internal\.example:8080\/team\/app\/-\/merge_requests\/new\?/,
    );
    expect(compareLink('ssh://git@gitlab.corp.example:2222/team/app.git', 'main', 'b')?.url).toMatch(
      /^https:\/\/gitlab\.corp\.example\/team\/app\//,
    );
    expect(compareLink('https://github.example.com/team/app.git', 'main', 'b')?.provider).toBe('github');
  });

  it('encodes branch names but keeps their slashes', () => {
    expect(compareLink('https://github.com/a/b', 'release/1.x', 'nexus/a+b')?.url).toBe(
      'https://github.com/a/b/compare/release/1.x...nexus/a%2Bb?expand=1',
    );
  });

  it('gives no link for unknown hosts, local paths and malformed remotes', () => {
    for (const remote of [
      'https://bitbucket.org/acme/widgets.git',
      'http://127.0.0.1:4567/repo.git',
      '/workspace',
      'file:///srv/git/repo.git',
      'https://github.com/acme',
      'https://github.com/acme/widgets/extra',
      'not a url',
      '',
    ])
      expect(compareLink(remote, 'main', 'nexus/x'), remote).toBeNull();
  });

  it('reads host and path from a remote', () => {
    expect(parseRemote('git@gitlab.com:g/s/p.git')).toEqual({ host: 'gitlab.com', path: 'g/s/p', scheme: 'https' });
    expect(parseRemote('https://github.com/a/../b')).toBeNull();
  });
});
