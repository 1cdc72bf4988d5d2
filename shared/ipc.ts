import type { WireError } from './errors';

/** Fixed IPC channel names, one per operation, plus one for push events. */
export const opChannel = (op: string): string => `nexus:op:${op}`;
export const EVENT_CHANNEL = 'nexus:event';

/** What crosses IPC and HTTP: a result or a typed error, never a stack trace. */
export type Reply<T> = { result: T } | { error: WireError };

/** The renderer's origin inside Electron (served by the app:// protocol). */
export const APP_ORIGIN = 'app://nexus';
