import { Agent, type ClientRequestArgs } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * An http.Agent whose connections come from `dial` (an SSH channel, a TLS socket): dockerode talks
 * HTTP over them as over its unix socket. No keep-alive: each request gets its own channel, which the
 * response's end closes (channels are cheap on the one SSH connection; a hijacked exec keeps its own).
 */
export class DialAgent extends Agent {
  constructor(private readonly dial: () => Promise<Duplex>) {
    super({ keepAlive: false });
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
