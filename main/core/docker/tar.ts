import { createReadStream } from 'node:fs';

/** A minimal, deterministic ustar writer for Docker build contexts and copies (regular files and symlinks). */
export interface TarEntry {
  /** Path inside the archive, with forward slashes. */
  path: string;
  data: Buffer;
  mode: number;
}

const BLOCK = 512;

/** A file on disk to archive, or (`link`) a symbolic link to that target, archived as a link. */
export interface TarFile {
  path: string;
  file: string;
  mode: number;
  size: number;
  link?: string;
}

function header(entry: { path: string; mode: number; size: number; link?: string | undefined }): Buffer {
  const h = Buffer.alloc(BLOCK, 0);
  let name = entry.path;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 155);
    if (cut <= 0 || Buffer.byteLength(name.slice(cut + 1)) > 100)
      throw new Error(`path too long for tar: ${entry.path}`);
    prefix = name.slice(0, cut);
    name = name.slice(cut + 1);
  }
  const octal = (n: number, width: number): string => n.toString(8).padStart(width - 1, '0') + '\0';
  h.write(name, 0, 100, 'utf8');
  h.write(octal(entry.mode & 0o7777, 8), 100, 8, 'ascii');
  h.write(octal(0, 8), 108, 8, 'ascii'); // uid
  h.write(octal(0, 8), 116, 8, 'ascii'); // gid
  h.write(octal(entry.size, 12), 124, 12, 'ascii');
  h.write(octal(0, 12), 136, 12, 'ascii'); // mtime fixed: the archive hashes the same for the same content
  h.write('        ', 148, 8, 'ascii');
  if (entry.link !== undefined) {
    if (Buffer.byteLength(entry.link) > 100) throw new Error(`link target too long for tar: ${entry.path}`);
    h.write('2', 156, 1, 'ascii');
    h.write(entry.link, 157, 100, 'utf8');
  } else h.write('0', 156, 1, 'ascii');
  h.write('ustar\0', 257, 6, 'ascii');
  h.write('00', 263, 2, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8, 'ascii');
  return h;
}

/** Packs the entries, in the order given, into one tar archive. */
export function packTar(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    parts.push(header({ ...entry, size: entry.data.length }), entry.data);
    const pad = (BLOCK - (entry.data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad, 0));
  }
  parts.push(Buffer.alloc(BLOCK * 2, 0));
  return Buffer.concat(parts);
}

/** The same archive for files on disk, streamed (a 400 MB binary never sits in memory whole). */
export async function* streamTar(files: readonly TarFile[]): AsyncGenerator<Buffer> {
  for (const f of files) {
    if (f.link !== undefined) {
      yield header({ ...f, size: 0 });
      continue;
    }
    yield header(f);
    for await (const chunk of createReadStream(f.file)) yield chunk as Buffer;
    const pad = (BLOCK - (f.size % BLOCK)) % BLOCK;
    if (pad) yield Buffer.alloc(pad, 0);
  }
  yield Buffer.alloc(BLOCK * 2, 0);
}
