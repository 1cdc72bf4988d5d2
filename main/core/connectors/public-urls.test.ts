import { describe, expect, it } from 'vitest';
import { isAllowedRedirect, parsePublicOrigin } from './public-urls';

describe('the public origin and the redirects registration accepts', () => {
  it('takes an https origin, normalised, and nothing with a path, query, credentials or plain http', () => {
    expect(parsePublicOrigin('https://Nexus.Example.ts.net')).toBe('https://nexus.example.ts.net');
    expect(parsePublicOrigin(' https://nexus.example.ts.net/ ')).toBe('https://nexus.example.ts.net');
    expect(parsePublicOrigin('https://nexus.example.ts.net:8443')).toBe('https://nexus.example.ts.net:8443');
    for (const bad of [
      'http://nexus.example.ts.net',
      'https://nexus.example.ts.net/api',
      'https://nexus.example.ts.net?x=1',
      'https://user:pw@nexus.example.ts.net',
      'https://nexus.example.ts.net#frag',
      'nexus.example.ts.net',
      '',
    ])
      expect(parsePublicOrigin(bad), bad).toBeNull();
  });

  it("accepts exactly Claude's two callbacks and http loopback redirects", () => {
    for (const ok of [
      'https://claude.ai/api/mcp/auth_callback',
      'https://claude.com/api/mcp/auth_callback',
      'http://127.0.0.1:33418/callback',
      'http://localhost:8080/cb',
      'http://[::1]:9/cb',
    ])
      expect(isAllowedRedirect(ok), ok).toBe(true);
    for (const bad of [
      'https://claude.ai/api/mcp/auth_callback/',
      'https://claude.ai/api/mcp/auth_callback?x=1',
      'https://evil.claude.ai/api/mcp/auth_callback',
      'https://claude.ai.evil.example/api/mcp/auth_callback',
      'http://claude.ai/api/mcp/auth_callback',
      'https://127.0.0.1:33418/callback',
      'http://user@127.0.0.1/cb',
      'http://127.0.0.1.evil.example/cb',
      'http://10.0.0.1/cb',
      'javascript:alert(1)',
      'not a url',
    ])
      expect(isAllowedRedirect(bad), bad).toBe(false);
  });
});
