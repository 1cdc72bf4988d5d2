import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NexusError } from '../../shared/errors';
import { testCore } from '../../test/helpers/core';
import type { Core } from '.';
import { operatorContext, type CallContext } from './handlers';

describe('Dispatcher', () => {
  let core: Core;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ core, cleanup } = await testCore()));
  afterAll(() => cleanup());

  const readToken: CallContext = {
    transport: 'mcp',
    caller: { kind: 'token', tokenId: 't1', name: 'ci', access: 'read' },
  };

  it('answers app.info with the typed states and the data dir', async () => {
    const info = await core.dispatcher.call('app.info', {}, operatorContext('http'));
    expect(info.version).toBe('test');
    expect(['available', 'unavailable']).toContain(info.docker.state);
    expect(info.vault.state).toMatch(/uninitialized|locked|unlocked/);
    expect(info.docker.reason.length).toBeGreaterThan(0);
  });

  it('rejects an unknown operation with not_found', async () => {
    await expect(core.dispatcher.call('nope.never', {}, operatorContext('http'))).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('rejects invalid input with bad_request naming the field, and runs nothing', async () => {
    const err = (await core.dispatcher
      .call('app.info', { junk: true }, operatorContext('http'))
      .catch((e: unknown) => e)) as NexusError;
    expect(err).toBeInstanceOf(NexusError);
    expect(err.code).toBe('bad_request');
    expect(err.message).toMatch(/app\.info/);
  });

  it('lets a read token call a read operation and audits the call', async () => {
    await core.dispatcher.call('workspaces.list', {}, readToken);
    const last = core.audit.recent(1)[0];
    expect(last).toMatchObject({ actor: 'token:t1', transport: 'mcp', operation: 'workspaces.list', outcome: 'ok' });
  });
});
