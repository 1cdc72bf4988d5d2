import { z } from 'zod';

/** The outbox's retries (docs/tracker.md): 1 s, doubling to at most 30 s between tries of a row. */
export const TrackerConfig = z
  .object({
    retryBaseMs: z.number().int().positive().default(1_000),
    retryMaxMs: z.number().int().positive().default(30_000),
    /** How often pick-up rules are looked at; each workspace's tracker is still asked only at its own rate. */
    pickupTickMs: z.number().int().positive().default(15_000),
  })
  .prefault({});
export type TrackerConfig = z.infer<typeof TrackerConfig>;
