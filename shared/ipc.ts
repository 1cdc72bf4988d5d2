export type { Reply } from './errors';

/** Fixed IPC channel names, one per operation, plus one for push events. */
export const opChannel = (op: string): string => `nexus:op:${op}`;
export const EVENT_CHANNEL = 'nexus:event';

/** The renderer's origin inside Electron (served by the app:// protocol). */
export const APP_ORIGIN = 'app://nexus';
