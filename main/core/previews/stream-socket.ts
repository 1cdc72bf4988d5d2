import { Duplex, type Readable } from 'node:stream';

/** A stream the HTTP client can pool like a socket (it asks these of its sockets). */
export interface PreviewSocket extends Duplex {
  setKeepAlive(enable?: boolean, delay?: number): unknown;
  setNoDelay(noDelay?: boolean): unknown;
  setTimeout(ms: number, cb?: () => void): unknown;
  ref(): unknown;
  unref(): unknown;
}

/**
 * A stream that is not a socket, as one: writes go to `sink`, what `source` gives is read (an exec's hijacked stream
 * and its demuxed stdout; an SSH channel, both ends). Like the HTTP client's own sockets it does not stay half-open:
 * once the far side ends, it ends too, so a keep-alive connection the app closed leaves the pool instead of failing
 * the next request. Keep-alive, Nagle and ref are the carrier's business; the idle timeout is a socket's.
 */
export class StreamSocket extends Duplex implements PreviewSocket {
  private timeoutCb: (() => void) | null = null;
  private idle: NodeJS.Timeout | null = null;
  private sourceEnded = false;

  constructor(
    private readonly sink: Duplex,
    private readonly source: Readable = sink,
  ) {
    super({ allowHalfOpen: false });
    source.on('data', (d: Buffer) => {
      if (!this.push(d)) source.pause();
    });
    source.on('end', () => ((this.sourceEnded = true), this.push(null)));
    // Closed with everything read: this stream ends by itself once its reader has it all; else it is cut short.
    sink.on('close', () => {
      if (!this.sourceEnded) this.destroy();
    });
    sink.on('error', (e) => this.destroy(e));
  }
  override _read(): void {
    this.source.resume();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: (e?: Error | null) => void): void {
    this.sink.write(chunk, done);
  }
  override _final(done: (e?: Error | null) => void): void {
    this.sink.end();
    done();
  }
  override _destroy(e: Error | null, done: (e?: Error | null) => void): void {
    if (this.idle) clearTimeout(this.idle);
    this.sink.destroy();
    done(e);
  }
  setKeepAlive(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  /** Like a socket's: 'timeout' after `ms` idle (0: never); a newer callback replaces the one before it. */
  setTimeout(ms: number, cb?: () => void): this {
    if (this.timeoutCb) this.removeListener('timeout', this.timeoutCb);
    this.timeoutCb = cb ?? null;
    if (cb) this.once('timeout', cb);
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    if (ms > 0) {
      this.idle = setTimeout(() => this.emit('timeout'), ms);
      this.idle.unref();
    }
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}
