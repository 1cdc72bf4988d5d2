import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ToolReply, type ToolName } from '../../shared/platform-tools';
import { userAuth } from '../../main/core/platform/nats/auth';
import type { RunCredentials } from '../../main/core/platform/platform-service';

/** A run's side of the wire, as a worker would hold it: used by tests and the benchmark. */
export interface RunClient {
  nc: NatsConnection;
  call(tool: ToolName | string, args?: unknown, subject?: string): Promise<ToolReply>;
  close(): Promise<void>;
}

export async function connectRun(creds: RunCredentials): Promise<RunClient> {
  const nc = await connect({
    servers: creds.natsUrl,
    ...(creds.password ? userAuth(creds.password) : {}),
    inboxPrefix: creds.inboxPrefix,
    reconnect: false,
    // nats.js otherwise builds two stack-traced errors per request, in case it fails (docs/performance.md).
    noAsyncTraces: true,
  });
  return {
    nc,
    call: async (tool, args = {}, subject = creds.subject) => {
      const msg = await nc.request(subject, JSON.stringify({ tool, args }), { timeout: 5_000 });
      return ToolReply.parse(msg.json());
    },
    close: () => nc.close(),
  };
}
