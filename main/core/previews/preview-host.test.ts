import { describe, expect, it } from 'vitest';
import { parsePreviewHost, previewOrigin, sessionLabel } from './preview-host';

describe('preview origins', () => {
  it('names a session, port and workspace as one origin and reads it back from the Host', () => {
    const name = { port: 5173, session: 'fix-login', workspace: 'shop' };
    const origin = previewOrigin(name, 4780);
    expect(origin).toBe('http://5173-fix-login.shop.localhost:4780');
    expect(parsePreviewHost(new URL(origin).host, 4780)).toEqual(name);
  });

  it('reads a Host in any case, as browsers may send it', () => {
    expect(parsePreviewHost('3000-A.WS.Localhost:4780', 4780)).toEqual({ port: 3000, session: 'a', workspace: 'ws' });
  });

  it("is no preview: the UI's own names, another port, a port out of range, extra labels, other suffixes", () => {
    for (const host of [
      undefined,
      '127.0.0.1:4780',
      'localhost:4780',
      'ws.localhost:4780',
      '3000-s.ws.localhost:4781',
      '3000-s.ws.localhost',
      '70000-s.ws.localhost:4780',
      '0-s.ws.localhost:4780',
      'x.3000-s.ws.localhost:4780',
      '3000-s.ws.localhost.evil.example:4780',
      '3000-s.ws.example:4780',
      '3000-s_x.ws.localhost:4780',
      '3000--s.ws.localhost:4780',
    ])
      expect(parsePreviewHost(host, 4780), String(host)).toBeNull();
  });

  it('labels a session by its name when that is a DNS label, else by its id (dots, underscores, length)', () => {
    expect(sessionLabel({ id: 'ab12-cd', name: 'fix-1' })).toBe('fix-1');
    expect(sessionLabel({ id: 'AB12-cd34', name: 'v1.2' })).toBe('sab12cd34');
    expect(sessionLabel({ id: 'ab12', name: 'a_b' })).toBe('sab12');
    const long = 'x'.repeat(60);
    const label = sessionLabel({ id: '0f'.repeat(40), name: long });
    expect(label.length).toBeLessThanOrEqual(57);
    expect(parsePreviewHost(`65535-${label}.ws.localhost:1`, 1)?.session).toBe(label);
  });
});
