import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Redactor } from './redact';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

/** Structured JSON lines; every line goes through the redactor before it is written anywhere. */
export function createLogger(opts: { file?: string; stderr?: boolean; redactor: Redactor; base?: LogFields }): Logger {
  if (opts.file) mkdirSync(dirname(opts.file), { recursive: true });
  const write = (level: LogLevel, msg: string, fields?: LogFields): void => {
    const entry = opts.redactor.value({ t: new Date().toISOString(), level, msg, ...opts.base, ...fields });
    const line = `${JSON.stringify(entry, errorReplacer)}\n`;
    if (opts.file) {
      try {
        appendFileSync(opts.file, line, { mode: 0o600 });
      } catch {
        // Logging never throws into the caller (e.g. a late line after the data dir was removed).
      }
    }
    if (opts.stderr) process.stderr.write(line);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => createLogger({ ...opts, base: { ...opts.base, ...fields } }),
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
}
