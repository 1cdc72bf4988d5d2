import { migration001 } from './001_foundation';
import type { Migration } from './types';

/** Every migration, in order. Add new ones at the end with the next number. */
export const migrations: readonly Migration[] = [migration001];
