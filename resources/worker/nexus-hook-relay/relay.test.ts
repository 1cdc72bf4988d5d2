import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { COUNTS_PATH, RELAY_PATH, SESSION_HEADER, createRelayServer } from './relay';

describe('the hook relay', () => {
  const published: { subject: string; payload: Record<string, unknown> }[] = [];
  const server = createRelayServer({
    workspaceId: 'ws1',
    permissionWaitMs: 1000,
    publish: (subject, payload) => void published.push({ subject, payload: JSON.parse(payload) }),
    request: async () => null,
  });
  afterEach(() => new Promise<void>((r) => (server.listening ? server.close(() => r()) : r())));

  const base = async (): Promise<string> => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const post = (url: string, body: unknown, session = 'sess1') =>
    fetch(`${url}${RELAY_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SESSION_HEADER]: session },
      body: JSON.stringify(body),
    });

  it('numbers the events it publishes 1, 2, 3 with its pid, and says how many it sent', async () => {
    const url = await base();
    for (const name of ['SessionStart', 'UserPromptSubmit', 'Stop']) await post(url, { hook_event_name: name });
    // Not a hook event: answered, neither published nor counted.
    await post(url, { nothing: true });
    expect(published.map((p) => [p.subject, p.payload.seq, p.payload.relayPid])).toEqual([
      ['nexus.hooks.ws1', 1, process.pid],
      ['nexus.hooks.ws1', 2, process.pid],
      ['nexus.hooks.ws1', 3, process.pid],
    ]);
    expect(published.map((p) => (p.payload.event as { hook_event_name: string }).hook_event_name)).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'Stop',
    ]);
    const counts = await fetch(`${url}${COUNTS_PATH}`);
    expect(await counts.json()).toEqual({ pid: process.pid, sent: 3 });
  });
});
