import type { NatsConnection } from '@nats-io/transport-node';
import { CATALOG_REQUEST, Catalog, catalogSubjectFor } from '../../../shared/platform-gating';
import { ToolReply, toolNames } from '../../../shared/platform-tools';

/**
 * Keeps the bridge's tools/list equal to Core's catalogue for the run (seed "Gating": a tool is
 * offered only when its check passes and the agent's allow-list has it). Asked once connected and
 * (again every 2 s until Core answers) and after every reconnect; Core pushes a new one on `_INBOX.<runId>.catalog` when the agent
 * record changes. A Core that does not know the request (an error reply) gets every tool offered:
 * it re-checks each call anyway.
 */
export function followCatalog(
  nc: NatsConnection,
  runId: string,
  ask: (payload: string) => Promise<unknown>,
  offer: (tools: readonly string[]) => void,
): { first: Promise<void> } {
  const fetch = async (): Promise<void> => {
    const reply = ToolReply.parse(await ask(JSON.stringify({ tool: CATALOG_REQUEST })));
    offer('result' in reply ? Catalog.parse(reply.result).tools : toolNames);
  };
  nc.subscribe(catalogSubjectFor(runId), {
    callback: (err, msg) => {
      if (err) return;
      const c = Catalog.safeParse(msg.json());
      if (c.success) offer(c.data.tools);
    },
  });
  void (async () => {
    for await (const s of nc.status()) if (s.type === 'reconnect') await fetch().catch(() => undefined);
  })();
  const untilAnswered = async (): Promise<void> => {
    for (;;) {
      try {
        return await fetch();
      } catch {
        await new Promise((r) => setTimeout(r, 2000));
      }
    }
  };
  return { first: untilAnswered() };
}
