import { describe, expect, it } from 'vitest';
import { formatAllowEntry, matchAllowList, parseAllowEntry, parseAllowList, type AllowEntry } from './allow-list';
import { EgressConfig } from './config';

const list = (...raw: string[]): AllowEntry[] => {
  const { entries, errors } = parseAllowList(raw);
  expect(errors).toEqual([]);
  return entries;
};
const allows = (entries: AllowEntry[], host: string, port = 443, defaultPort: 80 | 443 = 443): boolean =>
  matchAllowList(entries, host, port, defaultPort) !== null;

describe('the egress allow-list', () => {
  it('matches an exact host on the web port of the request, and only that host', () => {
    const l = list('github.com');
    expect(allows(l, 'github.com')).toBe(true);
    expect(allows(l, 'github.com', 80, 80)).toBe(true);
    expect(allows(l, 'api.github.com')).toBe(false);
    expect(allows(l, 'github.com.evil.test')).toBe(false);
    expect(allows(l, 'evilgithub.com')).toBe(false);
  });

  it('opens another port only when the entry names it', () => {
    const l = list('git.example.com:8443');
    expect(allows(l, 'git.example.com', 8443)).toBe(true);
    expect(allows(l, 'git.example.com', 443)).toBe(false);
    // CONNECT to an entry without a port reaches 443 only, never 22 or 80.
    const web = list('packages.example.com');
    expect(allows(web, 'packages.example.com', 22)).toBe(false);
    expect(allows(web, 'packages.example.com', 80, 443)).toBe(false);
  });

  it('matches *.suffix on subdomains at a dot boundary, not the bare domain nor a look-alike', () => {
    const l = list('*.example.com');
    expect(allows(l, 'a.example.com')).toBe(true);
    expect(allows(l, 'a.b.example.com')).toBe(true);
    expect(allows(l, 'example.com')).toBe(false);
    expect(allows(l, 'badexample.com')).toBe(false);
    expect(allows(l, 'allowed.example.com.evil.test')).toBe(false);
    expect(allows(l, 'example.com.evil.test')).toBe(false);
  });

  it('compares names case-blind, without a trailing dot, and IDNs in their punycode form', () => {
    const l = list('Bücher.Example', 'PyPI.org.');
    expect(allows(l, 'xn--bcher-kva.example')).toBe(true);
    expect(allows(l, 'BÜCHER.example')).toBe(true);
    expect(allows(l, 'pypi.org')).toBe(true);
    expect(allows(l, 'PYPI.ORG.')).toBe(true);
    expect(formatAllowEntry(l[0] as AllowEntry)).toBe('xn--bcher-kva.example');
  });

  it('opens an IP address only through an entry naming that address, never through a name or wildcard', () => {
    const l = list('*.example.com', 'example.com', '10.0.0.5:8080', '[2001:db8::1]');
    expect(allows(l, '10.0.0.5', 8080)).toBe(true);
    expect(allows(l, '10.0.0.5', 443)).toBe(false);
    expect(allows(l, '10.0.0.6', 8080)).toBe(false);
    expect(allows(l, '2001:db8::1')).toBe(true);
    expect(allows(l, '[2001:db8:0::1]')).toBe(true);
    // CONNECT to an IP that example.com might resolve to is not example.com.
    expect(allows(list('example.com'), '93.184.216.34')).toBe(false);
    // Another spelling of an address (hex, a bare number) is neither a name nor an address here.
    expect(allows(list('127.0.0.1'), '0x7f.1')).toBe(false);
    expect(allows(list('127.0.0.1'), '2130706433')).toBe(false);
  });

  it('refuses entries that are not hosts, with the reason', () => {
    for (const bad of [
      '',
      '*',
      '*.com',
      '*.10.0.0.1',
      'exa mple.com',
      'a..b',
      'host:0',
      'host:70000',
      '-a.com',
      'http://x',
    ])
      expect(parseAllowEntry(bad)).toHaveProperty('error');
    expect(parseAllowList(['ok.example', 'no way']).errors).toEqual([
      '"no way" is not a host name, *.domain or IP address',
    ]);
  });
});

describe('egress.registries in core config', () => {
  it('ships npm’s registry, takes a mirror, and refuses what is not an allow-list entry, naming the setting', () => {
    expect(EgressConfig.parse({}).registries).toEqual(['registry.npmjs.org']);
    expect(EgressConfig.parse({ registries: ['npm.corp.test:8443', '*.pkg.corp.test'] }).registries).toHaveLength(2);
    for (const bad of ['*.com', 'https://npm.mirror.test', 'a b', 'host:99999']) {
      const r = EgressConfig.safeParse({ registries: [bad] });
      expect(r.success, bad).toBe(false);
      expect(r.error?.issues[0]?.path).toEqual(['registries', 0]);
    }
  });
});
