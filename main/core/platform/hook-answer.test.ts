import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { testCore } from '../../../test/helpers/core';
import { userAuth } from './nats/auth';

describe('hook events core takes in', () => {
  it('answers each hook event sent as a request once its handlers have it, so the relay knows it arrived', async () => {
    const t = await testCore();
    try {
      const { platform } = t.core;
      const hook = await platform.createHookPublisher('ws-answer');
      const landed: unknown[] = [];
      platform.onHookEvent((e) => landed.push(e));
      const relay = await connect({
        servers: hook.natsUrl,
        ...userAuth(hook.password ?? ''),
        inboxPrefix: 'nexus.permission-replies.ws-answer',
      });
      try {
        await relay.request(hook.subject, JSON.stringify({ hook_event_name: 'Stop' }), { timeout: 5000 });
        expect(landed).toEqual([{ workspaceId: 'ws-answer', event: { hook_event_name: 'Stop' } }]);
      } finally {
        await relay.close();
      }
    } finally {
      await t.cleanup();
    }
  });
});
