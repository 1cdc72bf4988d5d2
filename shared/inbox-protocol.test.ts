import { describe, expect, it } from 'vitest';
import { encodeAuthFrame, encodeUserFrame, MAX_LINE_CHARS, parseStatusFrame } from './inbox-protocol';

describe('inbox protocol', () => {
  it('sends the auth frame as one JSON line', () => {
    expect(encodeAuthFrame('0123456789abcdef0123456789abcdef')).toBe(
      '{"type":"auth","token":"0123456789abcdef0123456789abcdef"}\n',
    );
  });

  it('wraps text in a user frame with priority next, one line even when the text has newlines', () => {
    const line = encodeUserFrame({ content: 'a\nb "c"', msgId: 'm1', sessionId: 'abc', replyTo: '/tmp/r/1.sock' });
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      type: 'user',
      message: { role: 'user', content: 'a\nb "c"' },
      priority: 'next',
      msg_id: 'm1',
      session_id: 'abc',
      from: 'uds:/tmp/r/1.sock',
    });
  });

  it('refuses empty content', () => {
    expect(() => encodeUserFrame({ content: '' })).toThrow(/non-empty/);
  });

  it('refuses a frame longer than the line limit the agent enforces', () => {
    expect(() => encodeUserFrame({ content: 'x'.repeat(MAX_LINE_CHARS) })).toThrow(/too long/);
    expect(() => encodeUserFrame({ content: 'x'.repeat(MAX_LINE_CHARS - 100) })).not.toThrow();
  });

  it('refuses a reply address with characters the agent would reject', () => {
    expect(() => encodeUserFrame({ content: 'x', replyTo: '/tmp/a b.sock' })).toThrow(/reply address/);
    expect(() => encodeUserFrame({ content: 'x', replyTo: `/${'a'.repeat(300)}` })).toThrow(/reply address/);
  });

  it('reads a delivery status and ignores anything else', () => {
    expect(parseStatusFrame('{"type":"control","action":"peer_message_status","status":"held","msg_id":"m1"}')).toEqual(
      { status: 'held', msgId: 'm1' },
    );
    expect(
      parseStatusFrame('{"type":"control","action":"peer_message_status","status":"delivered","orig_msg_id":"m2"}'),
    ).toEqual({ status: 'delivered', msgId: 'm2' });
    expect(
      parseStatusFrame(
        '{"type":"control","action":"peer_message_status","status":"expired","status_detail":"refused"}',
      ),
    ).toEqual({ status: 'refused', msgId: null });
    expect(parseStatusFrame('{"type":"control","action":"other","status":"held"}')).toBeNull();
    expect(parseStatusFrame('{"type":"control","action":"peer_message_status","status":"weird"}')).toBeNull();
    expect(parseStatusFrame('not json')).toBeNull();
  });
});
