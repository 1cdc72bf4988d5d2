import { Agent, type ClientRequestArgs } from 'node:http';
import type { Duplex } from 'node:stream';
import { inspect } from 'node:util';

/**
 * An http.Agent whose connections come from `dial` (an SSH channel, a TLS socket): dockerode talks
 * HTTP over them as over its unix socket. No keep-alive: each request gets its own channel, which the
 * response's end closes (a channel is one round trip on the one SSH connection, no handshake; a
 * pooled channel whose far end had closed would hang the next request on it).
 */
export class DialAgent extends Agent {
  constructor(private readonly dial: () => Promise<Duplex>) {
    super({ keepAlive: false });
  }

  /**
   * docker-modem logs every request with `util.inspect(options, { showHidden: true, depth: null })`
   * whether its debug log is on or not; the options hold this agent, whose sockets are SSH channels on
   * the whole ssh2 client. Shown as one word, a request costs ~1/5 of the CPU.
   */
  [inspect.custom](): string {
    return 'DialAgent';
  }

  override createConnection(
    _options: ClientRequestArgs,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    this.dial().then(
      (stream) => callback?.(null, stream),
      (e: unknown) => callback?.(e instanceof Error ? e : new Error(String(e)), undefined as unknown as Duplex),
    );
    return undefined;
  }
}
