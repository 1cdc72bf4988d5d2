/** Moves `length` bytes from `srcFd` to `dstFd` (both sockets) with splice(2) on a thread of its own. */
export interface NexusSplice {
  move(
    srcFd: number,
    dstFd: number,
    length: number,
    idleMs: number,
    callback: (code: number, message: string | null, moved: number) => void,
  ): void;
}
declare const addon: NexusSplice | null;
export = addon;
