import { z } from 'zod';
import { operation } from './define';

/**
 * The operator's phone (docs/remote.md): the operator UI on the public origin, signed in with a passkey
 * registered from the local UI. Every operation here is operator-only and none of them is on the
 * phone's allow-list (main/core/phone/phone-operations.ts): a phone cannot turn the phone UI on,
 * invite another phone or revoke one.
 */

export const PhoneStatus = z.object({
  /** Whether the operator UI answers on the public origin (off by default). */
  enabled: z.boolean(),
  /** The public origin in force, or null: with it off the phone UI cannot be reached either. */
  publicOrigin: z.string().nullable(),
  /** The URL a phone opens (the public origin), when both are on. */
  phoneUrl: z.string().nullable(),
});
export type PhoneStatus = z.infer<typeof PhoneStatus>;

export const PhoneDevice = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  /** Sessions of this device signed in and not expired. */
  activeSessions: z.number().int(),
});
export type PhoneDevice = z.infer<typeof PhoneDevice>;

export const PhoneInvite = z.object({
  /** The one-time registration link: open it on the phone before `expiresAt`. Shown once (only its hash is kept). */
  url: z.string(),
  name: z.string(),
  expiresAt: z.string(),
});
export type PhoneInvite = z.infer<typeof PhoneInvite>;

const Id = z.string().min(1).max(200);

export const phoneOperations = {
  'phone.status': operation({
    summary: 'The phone UI on the public origin: whether it is on, and the URL a phone opens.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: PhoneStatus,
  }),
  'phone.setEnabled': operation({
    summary: 'Turn the operator UI on the public origin on or off (off signs every phone out).',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ enabled: z.boolean() }).strict(),
    output: PhoneStatus,
  }),
  'phone.invite': operation({
    summary: 'Make a one-time link (10 minutes) that registers one phone passkey on the public origin.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ name: z.string().trim().min(1).max(60) }).strict(),
    output: PhoneInvite,
  }),
  'phone.devices': operation({
    summary: 'Every registered phone: name, created, last sign-in, revoked, sessions signed in.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({}).strict(),
    output: z.object({ devices: z.array(PhoneDevice) }),
  }),
  'phone.revoke': operation({
    summary: 'Revoke a phone: its passkey is refused and its sessions end at once.',
    access: 'operator',
    delegated: 'refused',
    phone: false,
    audit: 'dispatcher',
    input: z.object({ id: Id }).strict(),
    output: PhoneDevice,
  }),
};
