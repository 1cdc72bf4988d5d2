import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventMessage } from '../../../shared/contract';
import { vaultCore } from '../../../test/helpers/core';
import type { Core } from '..';
import { operatorContext, type CallContext } from '../handlers';

const op = operatorContext('http');
const vaultToken: CallContext = {
  transport: 'mcp',
  caller: { kind: 'token', tokenId: 't9', name: 'ci', access: 'vault' },
};
const VALUE = 'glpat-secretsTestValue-0123456789WXYZ';

describe('secrets', () => {
  let core: Core;
  let cleanup: () => Promise<void>;
  const seen: EventMessage[] = [];
  beforeAll(async () => {
    ({ core, cleanup } = await vaultCore());
    core.events.subscribe((e) => seen.push(e));
  });
  afterAll(() => cleanup());

  it('creates a secret and lists it with metadata and only its last 4 characters', async () => {
    const created = await core.dispatcher.call(
      'secrets.create',
      { name: 'GitLab work', kind: 'gitlab', host: 'gitlab.example.com', value: VALUE },
      op,
    );
    expect(created).toMatchObject({ name: 'GitLab work', kind: 'gitlab', host: 'gitlab.example.com', last4: 'WXYZ' });
    expect(Object.keys(created).sort()).toEqual(['createdAt', 'host', 'id', 'kind', 'last4', 'name', 'updatedAt']);
    const { secrets } = await core.dispatcher.call('secrets.list', {}, op);
    expect(secrets).toEqual([created]);
    expect(JSON.stringify(secrets)).not.toContain(VALUE.slice(0, -4));
    const event = seen.find((e) => e.name === 'secrets.changed');
    expect(event?.payload).toEqual({ secret: created });
  });

  it('shows no characters of a short value', async () => {
    const s = await core.dispatcher.call('secrets.create', { name: 'short', kind: 'generic', value: 'abc123' }, op);
    expect(s.last4).toBe('');
    await core.dispatcher.call('secrets.delete', { id: s.id }, op);
  });

  it('refuses a duplicate name with conflict', async () => {
    await expect(
      core.dispatcher.call('secrets.create', { name: 'GitLab work', kind: 'generic', value: 'whatever-value' }, op),
    ).rejects.toMatchObject({ code: 'conflict' });
  });

  it('updates metadata without touching the value, and replaces the value write-only', async () => {
    const [s] = (await core.dispatcher.call('secrets.list', {}, op)).secrets;
    const renamed = await core.dispatcher.call('secrets.update', { id: s!.id, name: 'GitLab', host: 'gitlab.com' }, op);
    expect(renamed).toMatchObject({ name: 'GitLab', host: 'gitlab.com', last4: 'WXYZ' });
    expect((await core.vault.resolveSecret(s!.id)).value).toBe(VALUE);
    const replaced = await core.dispatcher.call(
      'secrets.update',
      { id: s!.id, value: 'glpat-replacement-value-9876' },
      op,
    );
    expect(replaced.last4).toBe('9876');
    expect(await core.vault.resolveSecret(s!.id)).toEqual({
      value: 'glpat-replacement-value-9876',
      kind: 'gitlab',
      host: 'gitlab.com',
      name: 'GitLab',
    });
  });

  it('deletes a secret, then answers not_found for it', async () => {
    const s = await core.dispatcher.call(
      'secrets.create',
      { name: 'doomed', kind: 'generic', value: 'doomed-value-1234' },
      op,
    );
    expect(await core.dispatcher.call('secrets.delete', { id: s.id }, op)).toEqual({ deleted: true, id: s.id });
    await expect(core.vault.resolveSecret(s.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(core.dispatcher.call('secrets.delete', { id: s.id }, op)).rejects.toMatchObject({ code: 'not_found' });
    expect(seen).toContainEqual({ name: 'secrets.changed', payload: { secret: null, removedId: s.id } });
  });

  it.each([
    'vault.status',
    'vault.init',
    'vault.lock',
    'vault.unlock',
    'vault.changePassphrase',
    'secrets.list',
    'secrets.create',
    'secrets.update',
    'secrets.delete',
  ])('refuses %s to an MCP token, even of the vault class', async (name) => {
    await expect(core.dispatcher.call(name, {}, vaultToken)).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('registers every value with the redactor so it never appears in output', async () => {
    expect(core.redactor.text(`clone with ${VALUE}`)).toBe('clone with [REDACTED]');
    expect(core.redactor.text('token glpat-replacement-value-9876')).not.toContain('replacement-value');
  });
});
