// zod/mini: the relay is resident but its start is on the first session's path, so its bundle stays small.
import * as z from 'zod/mini';
import { HelperOutcomes } from './inbox-protocol';

/**
 * A message core hands a workspace's resident hook relay over NATS (`nexus.messages.<workspaceId>`), so a
 * send_message costs one request instead of a `docker exec` and a Node start in the container (which took
 * 4–15 s at load 50 in the soak, docs/performance.md "Load held"). The relay delivers it with the same code as
 * the one-shot helper (resources/worker/nexus-inbox-send/deliver.ts) and answers a HelperReport on the reply
 * subject core chose under `nexus.message-replies.<workspaceId>`, the only one its NATS user may publish on.
 * Both sides parse with these schemas. Core asks again with the same deliveryId when an answer does not come
 * (core/platform/message-relay.ts); the relay delivers a deliveryId once and answers every ask of it.
 */
export const RelayMessage = z.strictObject({
  deliveryId: z.string().check(z.regex(/^[a-f0-9]{16,64}$/)),
  sessionId: z.string().check(z.regex(/^[A-Za-z0-9_-]{1,100}$/)),
  text: z.string().check(z.minLength(1)),
  timeoutMs: z.int().check(z.positive(), z.maximum(120_000)),
  statusWaitMs: z.int().check(z.nonnegative(), z.maximum(60_000)),
});
export type RelayMessage = z.infer<typeof RelayMessage>;

export const RelayReport = z.strictObject({
  outcome: z.enum(HelperOutcomes),
  detail: z.optional(z.string().check(z.maxLength(2000))),
});

/** NATS carries at most 1 MiB a message (nats-config.ts): a longer message takes the helper's path. */
export const RELAY_MAX_BYTES = 1_000_000;
