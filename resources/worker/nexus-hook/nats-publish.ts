/**
 * Publish one message over the NATS client protocol on a plain socket: INFO, CONNECT, PUB, PING,
 * then wait for PONG (success) or -ERR (e.g. a permissions violation). Small enough to read in one
 * go, so the worker image needs no NATS library. No TLS: workers reach the local server only.
 */
import { connect } from 'node:net';

export interface NatsTarget {
  url: string;
  user?: string;
  pass?: string;
  token?: string;
}

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
          const opts = {
            verbose: false,
            pedantic: false,
            lang: 'node',
            version: '1',
            protocol: 1,
            name: 'nexus-hook',
            ...(target.user ? { user: target.user, pass: target.pass ?? '' } : {}),
            ...(target.token ? { auth_token: target.token } : {}),
          };
          sock.write(`CONNECT ${JSON.stringify(opts)}\r\nPUB ${subject} ${body.length}\r\n`);
          sock.write(body);
          sock.write('\r\nPING\r\n');
        } else if (line.startsWith('-ERR')) finish(new Error(`NATS: ${line}`));
        else if (line === 'PONG') finish();
        else if (line === 'PING') sock.write('PONG\r\n');
      }
    });
  });
}
