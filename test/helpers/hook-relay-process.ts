import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { repoRoot } from './core';
import { freePort } from './free-port';
import { waitFor } from './wait';

/** What "core" heard on a workspace's hooks subject: the relay's numbered events (its notices left out). */
export interface HeardHook {
  seq?: number;
  event?: { hook_event_name: string };
}

/** The hook relay's own entry point (nexus-hook-relay/main.ts) on the host, as a worker runs it. */
export interface RelayProcess {
  /** Posts a hook event as the CLI's hook command does; resolves with what the relay answered. */
  post(session: string, event: Record<string, unknown>): Promise<string>;
  /** As a SIGKILL does. */
  kill(): void;
}

/** Starts the relay for workspace `ws` with `natsConfig` (its nats.json: url, user, pass, …) and waits until it listens. */
export async function startRelayProcess(dir: string, ws: string, natsConfig: object): Promise<RelayProcess> {
  const natsFile = join(dir, 'nats.json');
  writeFileSync(natsFile, JSON.stringify(natsConfig));
  const port = await freePort();
  const ready = join(dir, 'relay.pid');
  const main = join(repoRoot, 'resources/worker/nexus-hook-relay/main.ts');
  const relay = spawn(process.execPath, ['--import', 'tsx', main, natsFile, String(port), ws, '0', ready], {
    cwd: repoRoot,
    stdio: 'ignore',
  });
  await waitFor(() => existsSync(ready), 'the relay to listen', 20_000);
  return {
    post: (session, event) =>
      fetch(`http://127.0.0.1:${port}/nexus-hook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-nexus-session': session },
        body: JSON.stringify(event),
      }).then((r) => r.text()),
    kill: () => void relay.kill('SIGKILL'),
  };
}

/** "Core" as platform-service is: each hook event on the workspace's subject taken (into `heard`) and answered. */
export function answerHookEvents(core: NatsConnection, ws: string, heard: HeardHook[]): void {
  const hooks = core.subscribe(`nexus.hooks.${ws}`);
  void (async () => {
    for await (const m of hooks) {
      const body = m.json<HeardHook & { relay?: unknown }>();
      if (!body.relay) heard.push(body);
      m.respond();
    }
  })();
}
