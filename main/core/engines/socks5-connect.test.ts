import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { socks5Answered, socks5Connect, socks5Request } from './socks5-connect';

const dirs: string[] = [];
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A SOCKS5 server on a unix socket that hands each connection's first bytes to `answer`. */
async function socksServer(answer: (asked: Buffer, s: Socket) => void): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'socks-test-'));
  dirs.push(dir);
  const path = join(dir, 's');
  const server = createServer((s) => s.once('data', (d: Buffer) => answer(d, s)));
  servers.push(server);
  await new Promise<void>((r) => server.listen(path, r));
  return path;
}

const OK = Buffer.from([0x05, 0x00, 0x05, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0]);

describe('a SOCKS5 CONNECT on a unix socket', () => {
  it('asks with no authentication for an IPv4 address or a name, greeting and request in one write', () => {
    expect([...socks5Request('10.203.0.2', 3000)]).toEqual([5, 1, 0, 5, 1, 0, 1, 10, 203, 0, 2, 0x0b, 0xb8]);
    expect([...socks5Request('db', 443)]).toEqual([5, 1, 0, 5, 1, 0, 3, 2, 0x64, 0x62, 0x01, 0xbb]);
    expect(() => socks5Request('::1', 80)).toThrow(RangeError);
    expect(() => socks5Request('10.0.0.1', 0)).toThrow(RangeError);
  });

  it('reads the answers whole before it says how long they are, whatever the bound address type', () => {
    expect(socks5Answered(OK.subarray(0, 7))).toBeNull();
    expect(socks5Answered(OK)).toBe(12);
    const named = Buffer.from([5, 0, 5, 0, 0, 3, 4, 0x68, 0x6f, 0x73, 0x74, 0, 80]);
    expect(socks5Answered(named)).toBe(13);
    expect(socks5Answered(Buffer.from([5, 0xff]))).toBeInstanceOf(Error);
    expect(socks5Answered(Buffer.from([5, 0, 5, 5, 0, 1]))).toEqual(new Error('reply code 5'));
  });

  it('hands over the connection once the server says connected, bytes after the reply kept, both ways', async () => {
    let asked: Buffer = Buffer.alloc(0);
    const path = await socksServer((d, s) => {
      asked = d;
      s.write(Buffer.concat([OK, Buffer.from('early ')]));
      s.on('data', (more: Buffer) => s.write(more));
    });
    const s = await socks5Connect(path, '10.203.0.2', 3000, 2000);
    expect([...asked]).toEqual([...socks5Request('10.203.0.2', 3000)]);
    s.write('echo');
    const got = await new Promise<string>((resolve) => {
      let b = '';
      s.on('data', (d: Buffer) => ((b += d.toString()), b.length >= 10 && resolve(b)));
    });
    expect(got).toBe('early echo');
    s.destroy();
  });

  it('is refused when the server closes before answering, as OpenSSH does when the channel does not open', async () => {
    const path = await socksServer((_d, s) => s.end(Buffer.from([5, 0])));
    await expect(socks5Connect(path, '10.203.0.2', 3001, 2000)).rejects.toMatchObject({
      name: 'SocksConnectFailed',
      reason: 'refused',
    });
  });

  it('is refused on a failure code, times out on silence, and is unreachable with no server', async () => {
    const failing = await socksServer((_d, s) => s.write(Buffer.from([5, 0, 5, 1, 0, 1, 0, 0, 0, 0, 0, 0])));
    await expect(socks5Connect(failing, '10.0.0.1', 80, 2000)).rejects.toMatchObject({ reason: 'refused' });
    const silent = await socksServer(() => undefined);
    await expect(socks5Connect(silent, '10.0.0.1', 80, 100)).rejects.toMatchObject({ reason: 'timeout' });
    await expect(socks5Connect(join(tmpdir(), 'no-such-socks'), '10.0.0.1', 80, 2000)).rejects.toMatchObject({
      reason: 'unreachable',
    });
  });
});
