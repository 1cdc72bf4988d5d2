import { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { StreamSocket } from './stream-socket';

/** The far end of a carrier (an SSH channel): what it was sent, whether it was ended, pushes what arrives. */
function carrier() {
  const sent: string[] = [];
  let ended = false;
  const d = new Duplex({
    read() {},
    write(chunk: Buffer, _enc, done) {
      sent.push(chunk.toString());
      done();
    },
    final(done) {
      ended = true;
      done();
    },
  });
  return { d, sent, ended: () => ended };
}

describe('a carrier stream as a preview socket', () => {
  it('passes bytes both ways, and once the app ends its side, ends its own and closes (no half-open socket in the pool)', async () => {
    const c = carrier();
    const s = new StreamSocket(c.d);
    const got: string[] = [];
    s.on('data', (d: Buffer) => got.push(d.toString()));
    s.write('GET / HTTP/1.1\r\n\r\n');
    c.d.push('HTTP/1.1 200 OK\r\n\r\n');
    c.d.push(null);
    await new Promise((r) => s.once('close', r));
    expect(got.join('')).toBe('HTTP/1.1 200 OK\r\n\r\n');
    expect(c.sent).toEqual(['GET / HTTP/1.1\r\n\r\n']);
    expect(c.ended()).toBe(true);
  });

  it('is cut short when its carrier closes before the answer ended', async () => {
    const c = carrier();
    const s = new StreamSocket(c.d);
    s.resume();
    c.d.destroy();
    await new Promise((r) => s.once('close', r));
    expect(s.readableEnded).toBe(false);
  });

  it('times out when idle like a socket: the latest callback only, none after setTimeout(0)', async () => {
    const s = new StreamSocket(carrier().d);
    const calls: string[] = [];
    s.setTimeout(10, () => calls.push('first'));
    s.setTimeout(10, () => calls.push('second'));
    await new Promise((r) => setTimeout(r, 40));
    s.setTimeout(0);
    expect(calls).toEqual(['second']);
    s.destroy();
  });
});
