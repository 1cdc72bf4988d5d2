import { describe, expect, it } from 'vitest';
import { checkRepoUrl, credentialHost } from './repo-url';

describe('repository URLs', () => {
  it('accepts https and http URLs and names the credential host with its port', () => {
    expect(checkRepoUrl('https://github.com/o/r.git')).toBe('https://github.com/o/r.git');
    expect(credentialHost('http://127.0.0.1:8080/r.git')).toBe('127.0.0.1:8080');
  });

  it('refuses URLs carrying credentials, other schemes and option-looking strings', () => {
    for (const bad of [
      'https://x:y@github.com/o/r',
      'git@github.com:o/r.git',
      'ssh://github.com/o/r',
      '-c',
      'https://a b',
    ]) {
      expect(() => checkRepoUrl(bad)).toThrow(/Invalid repository URL/);
    }
  });
});
