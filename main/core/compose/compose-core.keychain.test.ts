import { afterEach, describe, expect, it } from 'vitest';
import { operatorContext } from '../handlers';
import { composeTestCore } from '../../../test/helpers/core';
import { tempDir } from '../../../test/helpers/temp-dir';

// The composition root builds core as a list of modules (main/core/index.ts, core-module.ts): building one makes no
// subscription, so nothing reacts before core's start, and closing it ends every subscription its start made.
describe('composing core', () => {
  const dirs: { remove(): void }[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => d.remove()));

  it('subscribes to nothing until start, and to nothing again after dispose', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const { core, start } = composeTestCore(dir.path, { docker: { network: 'host' } });
    expect(core.events.size).toBe(0);
    await start();
    // Attention, the phone's push, setup and the rules, previews, the tracker and the board follow the bus.
    expect(core.events.size).toBeGreaterThanOrEqual(6);
    expect(await core.dispatcher.call('app.info', {}, operatorContext('http'))).toMatchObject({ version: 'test' });
    await core.dispose();
    expect(core.events.size).toBe(0);
  });
});
