import { describe, expect, it } from 'vitest';
import { opNames, operations } from '../../../shared/contract';
import { vaultCoreForSuite } from '../../../test/helpers/suite';
import { filesHolding } from '../../../test/helpers/disk-scan';
import { operatorContext, type CallContext } from '../handlers';

describe('tokens.create reveals the secret once, and nothing else escapes', () => {
  const suite = vaultCoreForSuite();

  it('declares revealsOnce only on the operator-only makers of a credential, on a top-level string of their output', () => {
    const revealing = opNames.filter((n) => operations[n].revealsOnce !== undefined);
    expect(revealing).toEqual(['tokens.create', 'remote.createClient']);
    for (const n of revealing) expect(operations[n].access).toBe('operator');
    expect(operations['tokens.create'].output.shape.secret.safeParse('x').success).toBe(true);
    expect(operations['remote.createClient'].output.shape.clientSecret.safeParse('x').success).toBe(true);
  });

  it('returns the secret in clear from tokens.create while the rest of the output is still redacted', async () => {
    const leaky = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const out = await suite.core.dispatcher.call(
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
    const sub = suite.core.events.subscribe((e) => events.push(JSON.stringify(e)));
    const { secret, token } = await suite.core.dispatcher.call(
      'tokens.create',
      { name: 'once', class: 'vault' },
      operatorContext('ipc'),
    );
    await suite.core.dispatcher.call('tokens.revoke', { id: token.id }, operatorContext('ipc'));
    sub.dispose();
    const body = secret.slice(6);
    const list = await suite.core.dispatcher.call('tokens.list', {}, operatorContext('ipc'));
    expect(list.tokens.find((t) => t.id === token.id)).toMatchObject({
      state: 'revoked',
      hint: `${secret.slice(0, 10)}…`,
    });
    expect(JSON.stringify(list)).not.toContain(body);
    expect(events.join('\n')).not.toContain(body);
    expect(JSON.stringify(suite.core.audit.recent(100))).not.toContain(body);
    expect(filesHolding(suite.core, [body])).toEqual([]);
  });

  it('keeps token management away from every token class', async () => {
    for (const access of ['read', 'write', 'vault'] as const) {
      const ctx: CallContext = { transport: 'mcp', caller: { kind: 'token', tokenId: 't', name: 'n', access } };
      await expect(
        suite.core.dispatcher.call('tokens.create', { name: 'x', class: 'read' }, ctx),
      ).rejects.toMatchObject({
        code: 'forbidden',
      });
      await expect(suite.core.dispatcher.call('tokens.list', {}, ctx)).rejects.toMatchObject({ code: 'forbidden' });
      await expect(suite.core.dispatcher.call('connect.claudeDesktop', {}, ctx)).rejects.toMatchObject({
        code: 'forbidden',
      });
    }
  });
});
