import { describe, expect, it } from 'vitest';
import { viewToolInput } from './tool-input';

describe('viewToolInput', () => {
  it('leads with the command for Bash and the path for file tools', () => {
    expect(viewToolInput('Bash', { command: 'touch /tmp/x', description: 'make x' }).headline).toBe('touch /tmp/x');
    expect(viewToolInput('Edit', { file_path: '/w/a.ts', old_string: 'a', new_string: 'b' }).headline).toBe('/w/a.ts');
  });

  it('shows the whole input, and no headline for a tool it does not know', () => {
    const v = viewToolInput('mcp__other__tool', { a: 1 });
    expect(v.headline).toBeNull();
    expect(v.detail).toBe('{\n  "a": 1\n}');
  });

  it('shows an input core cut short as it came', () => {
    expect(viewToolInput('Bash', '{"command":"echo aaaa…')).toEqual({
      headline: null,
      detail: '{"command":"echo aaaa…',
    });
  });
});
