import { connect, isIP, isIPv4, type Socket } from 'node:net';

/**
 * A SOCKS5 CONNECT (RFC 1928) that did not give a connection: `refused` when the server answered with a failure
 * code or closed before answering (OpenSSH's dynamic forward closes when the SSH server will not open the channel,
 * whatever the reason), `timeout` when it said nothing in time, `unreachable` when the SOCKS server itself was not
 * there (its socket missing or not listening).
 */
export class SocksConnectFailed extends Error {
  constructor(
    readonly reason: 'refused' | 'timeout' | 'unreachable',
    readonly to: { host: string; port: number },
    detail: string,
  ) {
    super(`SOCKS5 connect to ${to.host}:${to.port} failed: ${detail}`);
    this.name = 'SocksConnectFailed';
  }
}

/** The greeting (version 5, one method: no authentication) and the CONNECT request to an IPv4 address or a name. */
export function socks5Request(host: string, port: number): Buffer {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RangeError(`not a port: ${port}`);
  let address: Buffer;
  if (isIPv4(host)) address = Buffer.from([0x01, ...host.split('.').map(Number)]);
  else if (isIP(host)) throw new RangeError('an IPv6 address is not asked this way (the caller has another path)');
  else {
    const name = Buffer.from(host, 'latin1');
    if (name.length === 0 || name.length > 255) throw new RangeError('a host name is 1 to 255 bytes');
    address = Buffer.concat([Buffer.from([0x03, name.length]), name]);
  }
  return Buffer.concat([
    Buffer.from([0x05, 0x01, 0x00]),
    Buffer.from([0x05, 0x01, 0x00]),
    address,
    Buffer.from([port >> 8, port & 0xff]),
  ]);
}

/**
 * How many bytes of `got` are the server's answers (the method choice and the CONNECT reply), once complete: null
 * while more must come; an Error when they say no.
 */
export function socks5Answered(got: Buffer): number | Error | null {
  if (got.length < 2) return null;
  if (got[0] !== 0x05 || got[1] !== 0x00) return new Error('the server accepts no unauthenticated client');
  if (got.length < 4) return null;
  if (got[2] !== 0x05) return new Error('not a SOCKS5 reply');
  if (got[3] !== 0x00) return new Error(`reply code ${got[3]}`);
  if (got.length < 6) return null;
  const type = got[5];
  const addressLength = type === 0x01 ? 4 : type === 0x04 ? 16 : type === 0x03 ? 1 + (got[6] ?? 255) : -1;
  if (addressLength < 0) return new Error('an unknown address type in the reply');
  const total = 2 + 4 + addressLength + 2;
  return got.length < total ? null : total;
}

/**
 * A TCP connection to `host:port` made by the SOCKS5 server on the unix socket `path` (OpenSSH's `ssh -D <path>`),
 * without authentication (the socket's file mode is the gate). The greeting and the request go in one write; the
 * socket is handed over once the server says it is connected, with any bytes that came after the reply put back.
 * OpenSSH answers only when the SSH server has opened the channel, so a resolved socket is a connection.
 */
export function socks5Connect(path: string, host: string, port: number, timeoutMs: number): Promise<Socket> {
  const to = { host, port };
  const request = socks5Request(host, port);
  return new Promise((resolve, reject) => {
    const s = connect(path);
    let got: Buffer = Buffer.alloc(0);
    let connected = false;
    const fail = (reason: SocksConnectFailed['reason'], detail: string): void => {
      clearTimeout(timer);
      s.destroy();
      reject(new SocksConnectFailed(reason, to, detail));
    };
    const timer = setTimeout(() => fail('timeout', `no answer in ${timeoutMs} ms`), timeoutMs);
    // Read by 'readable', not 'data': once that listener goes the socket is neither flowing nor paused, so its next
    // reader's 'data' listener starts it, and nothing is emitted to no one in between.
    const onReadable = (): void => {
      let d: Buffer | null;
      while ((d = s.read() as Buffer | null) !== null) got = got.length ? Buffer.concat([got, d]) : d;
      const answered = socks5Answered(got);
      if (answered === null) return;
      if (answered instanceof Error) return fail('refused', answered.message);
      clearTimeout(timer);
      s.off('readable', onReadable).off('end', onEnd).off('error', onError);
      if (got.length > answered) s.unshift(got.subarray(answered));
      resolve(s);
    };
    const onEnd = (): void => fail('refused', 'closed before it answered');
    const onError = (e: Error): void => fail(connected ? 'refused' : 'unreachable', e.message);
    s.on('readable', onReadable).on('end', onEnd).on('error', onError);
    s.once('connect', () => {
      connected = true;
      s.write(request);
    });
  });
}
