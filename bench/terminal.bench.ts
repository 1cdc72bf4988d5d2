import { sessionRig } from '../test/helpers/session-rig';
import { connectTerminal } from '../test/helpers/terminal-client';
import { terminalHost } from '../test/helpers/terminal-host';
import { compare, measure, type Benchmark } from './lib';

/**
 * The live terminal, keystroke -> echo on screen: a key sent on /api/terminal/<id> (WebSocket,
 * host, docker exec -it, tmux client, the agent's pane, whose tty echoes it) until the echo comes
 * back, against the same keystroke through a bare `docker exec -it cat` in the same container (the
 * engine's TTY stream alone). Target: p95 <= 50 ms on top of the bare echo.
 */
const bench: Benchmark = async () => {
  const rig = await sessionRig();
  try {
    const ws = await rig.addWorkspace('bench');
    const s = await rig.service.create({ workspace: 'bench', name: 'term' });
    await rig.service.idle();
    const served = await terminalHost(rig);
    try {
      const size = { cols: 120, rows: 40 };
      // Keys no escape sequence of a tmux redraw ends with; each waits for the first chunk that
      // arrives after it was sent and holds it.
      const KEYS = 'vwxyzgjko';
      const keystroke = (write: (k: string) => void, onData: (cb: (text: string) => void) => void) => {
        let waiting: { key: string; done(): void } | null = null;
        onData((text) => {
          if (waiting && text.includes(waiting.key)) {
            const w = waiting;
            waiting = null;
            w.done();
          }
        });
        let i = 0;
        return () =>
          new Promise<void>((resolve, reject) => {
            const key = KEYS[i++ % KEYS.length] as string;
            const timer = setTimeout(() => reject(new Error(`no echo of ${key}`)), 5000);
            waiting = { key, done: () => (clearTimeout(timer), resolve()) };
            write(key);
          });
      };

      const bare = await rig.runtime.attach(ws, ['cat'], { tty: true, size });
      const base = await measure(
        keystroke(
          (k) => bare.write(k),
          (cb) => bare.output.on('data', (d: Buffer) => cb(d.toString('utf8'))),
        ),
        { iterations: 200, concurrency: 1, warmup: 10 },
      );
      bare.write('\x04\x04');
      bare.close();

      const term = await connectTerminal(served.host.url, s.id, { cookie: served.cookie });
      term.resize(size.cols, size.rows);
      await term.waitFor('(fixture) agent session');
      const subject = await measure(
        keystroke(
          (k) => term.input(k),
          (cb) => term.ws.on('message', (d: Buffer) => cb(d.toString('utf8'))),
        ),
        { iterations: 200, concurrency: 1, warmup: 10 },
      );
      await term.close();
      return [
        {
          ...compare(
            'terminal keystroke -> echo (WebSocket, tmux)',
            'bare docker exec -it echo',
            subject,
            base,
            'p95 <= bare + 50 ms',
          ),
          extra: { p95Ms: subject.p95Ms, bareP95Ms: base.p95Ms },
        },
      ];
    } finally {
      await served.close();
    }
  } finally {
    await rig.dispose();
  }
};
export default bench;
