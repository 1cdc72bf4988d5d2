import { z } from 'zod';
import { RemoteError } from '../../../shared/errors';

/** The phone's sign-in state as GET /api/phone/session answers it (the CSRF token only when signed in). */
export const PhoneSession = z.object({
  signedIn: z.boolean(),
  device: z.string().nullable(),
  csrf: z.string().nullable(),
});
export type PhoneSession = z.infer<typeof PhoneSession>;

export async function readPhoneSession(): Promise<PhoneSession> {
  const res = await fetch('/api/phone/session', { credentials: 'same-origin' });
  return PhoneSession.parse(await res.json());
}

/** A passkey ceremony step on the public origin (the server checks the Origin on every one). */
export async function phonePost<T>(path: string, body: unknown, csrf?: string): Promise<T> {
  const res = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', ...(csrf ? { 'x-nexus-csrf': csrf } : {}) },
    body: JSON.stringify(body),
  });
  const reply = (await res.json().catch(() => ({}))) as { error?: { code: string; message: string } };
  if (!res.ok || reply.error)
    throw RemoteError.from(reply.error ?? { code: 'internal', message: `HTTP ${res.status}` });
  return reply as T;
}
