/**
 * Publish one message over the NATS client protocol on a plain socket: INFO, CONNECT, PUB, PING,
 * then wait for PONG (success) or -ERR (e.g. a permissions violation). Small enough to read in one
 * go, so the worker image needs no NATS library. No TLS: workers reach the local server only.
 */
import { connect } from 'node:net';
import { isUserJwt } from '../nats-credential';

export interface NatsTarget {
  url: string;
  user?: string;
  pass?: string;
  token?: string;
}

const connectLine = (target: NatsTarget): string =>
  `CONNECT ${JSON.stringify({
    verbose: false,
    pedantic: false,
    lang: 'node',
    version: '1',
    protocol: 1,
    name: 'nexus-hook',
    ...(target.user && isUserJwt(target.pass ?? '') ? { jwt: target.pass } : {}),
    ...(target.user && !isUserJwt(target.pass ?? '') ? { user: target.user, pass: target.pass ?? '' } : {}),
    ...(target.token ? { auth_token: target.token } : {}),
  })}\r\n`;

export function publishOnce(target: NatsTarget, subject: string, payload: string, timeoutMs: number): Promise<void> {
  const u = new URL(target.url.replace(/^nats:/, 'http:'));
  const body = Buffer.from(payload, 'utf8');
  return new Promise((resolve, reject) => {
    const sock = connect(Number(u.port || 4222), u.hostname);
    let buf = '';
    let sent = false;
    const finish = (err?: Error): void => {
      clearTimeout(timer);
      sock.destroy();
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(() => finish(new Error(`NATS: no answer within ${timeoutMs} ms`)), timeoutMs);
    sock.on('error', (e) => finish(e));
    sock.on('data', (d) => {
      buf += d.toString('utf8');
      let nl: number;
      while ((nl = buf.indexOf('\r\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 2);
        if (line.startsWith('INFO') && !sent) {
          sent = true;
          sock.write(`${connectLine(target)}PUB ${subject} ${body.length}\r\n`);
          sock.write(body);
          sock.write('\r\nPING\r\n');
        } else if (line.startsWith('-ERR')) finish(new Error(`NATS: ${line}`));
        else if (line === 'PONG') finish();
        else if (line === 'PING') sock.write('PONG\r\n');
      }
    });
  });
}

/**
 * One request over the same protocol: SUB <replyTo>, PUB <subject> <replyTo>, then wait for the one
 * MSG on <replyTo>. Resolves its payload, or null when nobody answers within waitMs (or core is away).
 */
export function requestOnce(
  target: NatsTarget,
  subject: string,
  replyTo: string,
  payload: string,
  waitMs: number,
): Promise<string | null> {
  const u = new URL(target.url.replace(/^nats:/, 'http:'));
  const body = Buffer.from(payload, 'utf8');
  return new Promise((resolve) => {
    const sock = connect(Number(u.port || 4222), u.hostname);
    let buf = Buffer.alloc(0);
    let sent = false;
    let want: number | null = null;
    const finish = (answer: string | null): void => {
      clearTimeout(timer);
      sock.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => finish(null), waitMs);
    sock.on('error', () => finish(null));
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        if (want !== null) {
          if (buf.length < want + 2) return;
          return finish(buf.subarray(0, want).toString('utf8'));
        }
        const nl = buf.indexOf('\r\n');
        if (nl < 0) return;
        const line = buf.subarray(0, nl).toString('utf8');
        buf = buf.subarray(nl + 2);
        if (line.startsWith('INFO') && !sent) {
          sent = true;
          sock.write(`${connectLine(target)}SUB ${replyTo} 1\r\nPUB ${subject} ${replyTo} ${body.length}\r\n`);
          sock.write(body);
          sock.write('\r\n');
        } else if (line.startsWith('MSG ')) want = Number(line.split(' ').at(-1));
        else if (line.startsWith('-ERR')) return finish(null);
        else if (line === 'PING') sock.write('PONG\r\n');
      }
    });
  });
}
