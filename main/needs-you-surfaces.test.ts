import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { needsYouLine, type NeedsYouItem } from '../shared/needs-you';
import { needsYouItems } from '../renderer/src/features/overview/needs-you';
import { testCore } from '../test/helpers/core';
import { needsOperator } from './cli/status-command';
import type { Core } from './core';
import { operatorContext } from './core/handlers';
import { createMcpServer } from './core/mcp/server';

vi.mock('electron', () => import('../test/fakes/electron'));
const { trayMenu } = await import('./electron/tray');

/**
 * One "Needs you" on every surface: the Overview, get_nexus_info, `nexus status` and the tray list
 * the same things, in the same order, for the same Nexus — here one whose vault is not set up.
 */
describe('what needs you, on every surface', () => {
  let core: Core;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ core, cleanup } = await testCore()));
  afterAll(() => cleanup());

  async function mcpNeedsYou(): Promise<{ items: NeedsYouItem[]; text: string }> {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(core, { kind: 'operator' }).connect(serverSide);
    const client = new Client({ name: 'in-memory', version: '1' });
    await client.connect(clientSide);
    const r = await client.callTool({ name: 'get_nexus_info', arguments: {} });
    await client.close();
    const text = (r.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
    return { items: (r.structuredContent as { needsYou: NeedsYouItem[] }).needsYou, text };
  }

  it('lists a vault that is not set up first on the Overview, in get_nexus_info, in nexus status and in the tray', async () => {
    const info = await core.dispatcher.call('app.info', {}, operatorContext('http'));
    expect(info.vault.state).toBe('uninitialized');
    const fleet = await core.dispatcher.call('attention.get', {}, operatorContext('http'));
    const summary = await core.dispatcher.call('attention.summary', {}, operatorContext('http'));
    const { requests } = await core.dispatcher.call('permissions.list', {}, operatorContext('http'));

    const overview = needsYouItems(info, fleet, requests);
    const mcp = await mcpNeedsYou();
    const status = needsOperator(info, summary);
    const tray = trayMenu(fleet, { open: vi.fn(), openSession: vi.fn(), quit: vi.fn() }, info).map((m) => m.label);

    expect(overview[0]).toMatchObject({ kind: 'vault', title: 'Vault not set up', reason: info.vault.reason });
    expect(mcp.items).toEqual(overview);
    expect(status).toEqual(overview.map((i) => needsYouLine(i)));
    expect(status[0]).toBe(`Vault not set up: ${info.vault.reason}`);
    expect(tray.slice(1, 1 + overview.length)).toEqual(status);
    expect(mcp.text).toContain(`Vault not set up: ${info.vault.reason}`);
    expect(mcp.text).not.toContain('Nothing needs you');
  });

  it('drops the vault from every surface alike once it is unlocked', async () => {
    // The status board is what every surface reads; setting it spares this file the OS keychain.
    core.status.set('vault', { state: 'unlocked', reason: 'Unlocked.', mode: 'keychain' });
    const info = await core.dispatcher.call('app.info', {}, operatorContext('http'));
    const fleet = await core.dispatcher.call('attention.get', {}, operatorContext('http'));
    const summary = await core.dispatcher.call('attention.summary', {}, operatorContext('http'));
    const overview = needsYouItems(info, fleet, []);
    expect(overview.map((i) => i.kind)).not.toContain('vault');
    expect((await mcpNeedsYou()).items).toEqual(overview);
    expect(needsOperator(info, summary)).toEqual(overview.map((i) => needsYouLine(i)));
  });
});
