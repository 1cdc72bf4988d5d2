import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opNames, operations } from '../../../shared/contract';
import { vaultCore, coreDb } from '../../../test/helpers/core';
import type { Core } from '..';
import { operatorContext, type CallContext } from '../handlers';

describe('tokens.create reveals the secret once, and nothing else escapes', () => {
  let core: Core;
  let dataDir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ core, dataDir, cleanup } = await vaultCore());
  });
  afterAll(() => cleanup());

  it('declares revealsOnce on tokens.create only, on a top-level string of its output', () => {
    const revealing = opNames.filter((n) => operations[n].revealsOnce !== undefined);
    expect(revealing).toEqual(['tokens.create']);
    expect(operations['tokens.create'].output.shape.secret.safeParse('x').success).toBe(true);
  });

  it('returns the secret in clear from tokens.create while the rest of the output is still redacted', async () => {
    const leaky = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const out = await core.dispatcher.call(
      'tokens.create',
      { name: `holder ${leaky}`, class: 'write' },
      operatorContext('http'),
    );
    expect(out.secret).toMatch(/^nxs_w_[A-Za-z0-9_-]{43}$/);
    expect(out.token.name).toBe('holder [REDACTED]');
    expect(JSON.stringify(out.token)).not.toContain(out.secret.slice(6));
  });

  it('never shows the secret again: not in tokens.list, events, the log, the audit or the database', async () => {
    const events: string[] = [];
    const sub = core.events.subscribe((e) => events.push(JSON.stringify(e)));
    const { secret, token } = await core.dispatcher.call(
      'tokens.create',
      { name: 'once', class: 'vault' },
      operatorContext('ipc'),
    );
    await core.dispatcher.call('tokens.revoke', { id: token.id }, operatorContext('ipc'));
    sub.dispose();
    const body = secret.slice(6);
    const list = await core.dispatcher.call('tokens.list', {}, operatorContext('ipc'));
    expect(list.tokens.find((t) => t.id === token.id)).toMatchObject({
      state: 'revoked',
      hint: `${secret.slice(0, 10)}…`,
    });
    expect(JSON.stringify(list)).not.toContain(body);
    expect(events.join('\n')).not.toContain(body);
    expect(JSON.stringify(core.audit.recent(100))).not.toContain(body);
    coreDb(core).pragma('wal_checkpoint(TRUNCATE)');
    for (const file of readdirSync(dataDir, { recursive: true }) as string[]) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(join(dataDir, file));
      } catch {
        continue;
      }
      expect(bytes.includes(Buffer.from(body)), file).toBe(false);
    }
  });

  it('keeps token management away from every token class', async () => {
    for (const access of ['read', 'write', 'vault'] as const) {
      const ctx: CallContext = { transport: 'mcp', caller: { kind: 'token', tokenId: 't', name: 'n', access } };
      await expect(core.dispatcher.call('tokens.create', { name: 'x', class: 'read' }, ctx)).rejects.toMatchObject({
        code: 'forbidden',
      });
      await expect(core.dispatcher.call('tokens.list', {}, ctx)).rejects.toMatchObject({ code: 'forbidden' });
      await expect(core.dispatcher.call('connect.claudeDesktop', {}, ctx)).rejects.toMatchObject({ code: 'forbidden' });
    }
  });
});
