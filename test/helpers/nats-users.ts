import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The credential (a bearer JWT) core issued to a NATS user, as the worker launcher hands it on: read
 * from the live users core keeps in `<dataDir>/nats/users.json` (0600; the test is the operator's own account).
 */
export function natsPasswordOf(dataDir: string, user: string): string | null {
  const file = JSON.parse(readFileSync(join(dataDir, 'nats', 'users.json'), 'utf8')) as {
    users: { user: string; password?: string }[];
  };
  return file.users.find((u) => u.user === user)?.password ?? null;
}
